/* safetensors_int.h — internals shared by the SafeTensors reader's files: the parse state of one
 * image (safetensors.c) and what a parsed checkpoint owns (safetensors_open.c). Never installed. */
#ifndef RF_SAFETENSORS_INT_H
#define RF_SAFETENSORS_INT_H

#include "formats/formats_int.h"
#include "formats/gguf_int.h"
#include "roofline/safetensors.h"

typedef struct rf__st_priv {
    rf_st_tensor *tensors; /* owned: names owned too unless `borrowed_names` */
    rf_st_meta *meta;      /* owned, with its strings */
    int borrowed_names;    /* merged shard set: names belong to the shards */
    rf__gg_index ix;       /* tensor names -> positions */
    rf__map map;           /* when opened from a file */
    rf_safetensors **shards;
    uint32_t n_shards;
} rf__st_priv;

typedef struct st_parse {
    rf_ctx *ctx;
    const uint8_t *base;
    size_t size;
    size_t header_len;   /* N */
    uint64_t data_start; /* 8 + N */
    uint64_t data_size;
    rf__st_priv *priv;
} st_parse;

/* Build the name index of st (RF_FORMAT when a name appears twice, for merged shards). */
rf_status rf__st_index(rf_ctx *ctx, rf_safetensors *st);

#endif
