/* detect.c — which reader a model file needs, from its bytes (magic numbers and layout, never the
 * extension alone), and which file stands for a SafeTensors checkpoint folder. Used by the one
 * loader (src/model/loader.c) and by rf_llm_parse; never parses beyond the first bytes. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "formats/formats_int.h"
#include "roofline/apr.h"
#include "roofline/model.h"

static int rf__ends_with(const char *s, const char *suffix)
{
    size_t n = s ? strlen(s) : 0, m = strlen(suffix);
    return n >= m && rf__strcasecmp(s + n - m, suffix) == 0;
}

rf_model_format rf_model_detect(const void *head, size_t n, const char *path)
{
    const uint8_t *h = head;
    if (n >= 4 && memcmp(h, "GGUF", 4) == 0) return RF_MODEL_GGUF;
    if (rf_apr_magic(h, n)) return RF_MODEL_APR;
    if (n >= 9 && h[8] == '{' && h[7] == 0 && h[6] == 0 && h[5] == 0) return RF_MODEL_SAFETENSORS;
    if (rf__ends_with(path, ".onnx")) return RF_MODEL_ONNX;
    if (rf__ends_with(path, ".gguf")) return RF_MODEL_GGUF;
    if (rf__ends_with(path, ".safetensors")) return RF_MODEL_SAFETENSORS;
    /* a ModelProto starts with ir_version (field 1, varint: 0x08) */
    if (n >= 2 && h[0] == 0x08 && h[1] > 0 && h[1] < 64) return RF_MODEL_ONNX;
    return RF_MODEL_AUTO;
}

int rf__is_st_index(const void *data, size_t size)
{
    const char *s = data;
    size_t i = 0;
    while (i < size && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n')) i++;
    if (i == size || s[i] != '{') return 0;
    static const char key[] = "\"weight_map\"";
    for (size_t j = i; j + sizeof key - 1 <= size; j++)
        if (memcmp(s + j, key, sizeof key - 1) == 0) return 1;
    return 0;
}

rf_status rf__model_file(rf_ctx *ctx, const char *path, char *out, size_t cap)
{
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        if ((size_t)snprintf(out, cap, "%s/model.safetensors.index.json", path) >= cap)
            return rf__error(ctx, RF_RANGE, -1, "%s: path too long", path);
        if (stat(out, &sb) == 0) return RF_OK;
        snprintf(out, cap, "%s/model.safetensors", path);
        if (stat(out, &sb) == 0) return RF_OK;
        return rf__error(ctx, RF_IO, -1,
                         "%s: a checkpoint folder holds model.safetensors (or "
                         "model.safetensors.index.json and its shards) and config.json; "
                         "this one has no weights file",
                         path);
    }
    if (strlen(path) >= cap) return rf__error(ctx, RF_RANGE, -1, "%s: path too long", path);
    rf__strlcpy(out, path, cap);
    return RF_OK;
}
