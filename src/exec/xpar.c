/* xpar.c — runs a C kernel's parts on the OpenMP team oneDNN's primitives already use, so a
 * memory-bound C step (DynamicQuantizeLinear, the int8 ops' zero-point folding) gets the pass's
 * threads without a second pool spinning against the first. The library is built without
 * -fopenmp: the runtime's entry points are looked up (libdnnl brings libgomp in), and without
 * them the parts run one after the other on the calling thread. Never times, never allocates. */
#include <dlfcn.h>

#include "exec/exec_int.h"

typedef struct xpar_job {
    rf__xpar_fn fn;
    void *arg;
    int (*tid)(void);
    int (*nth)(void);
} xpar_job;

static void xpar_one(void *data)
{
    const xpar_job *j = data;
    int n = j->nth(), i = j->tid();
    j->fn(j->arg, (unsigned)(i >= 0 ? i : 0), (unsigned)(n > 0 ? n : 1));
}

void rf__xpar_run(rf__xpar_fn fn, void *arg, int serial)
{
    void (*par)(void (*)(void *), void *, unsigned, unsigned) = NULL;
    xpar_job j = {fn, arg, NULL, NULL};
    if (!serial) {
        *(void **)&par = dlsym(RTLD_DEFAULT, "GOMP_parallel");
        *(void **)&j.tid = dlsym(RTLD_DEFAULT, "omp_get_thread_num");
        *(void **)&j.nth = dlsym(RTLD_DEFAULT, "omp_get_num_threads");
    }
    if (!par || !j.tid || !j.nth) {
        fn(arg, 0, 1);
        return;
    }
    par(xpar_one, &j, 0, 0); /* 0 threads: the team size the pass set (omp_set_num_threads) */
}

void rf__xpar_range(int64_t n, int64_t align, unsigned part, unsigned parts, int64_t *lo,
                    int64_t *hi)
{
    int64_t blocks = (n + align - 1) / align;
    int64_t b0 = blocks * (int64_t)part / (int64_t)parts;
    int64_t b1 = blocks * (int64_t)(part + 1) / (int64_t)parts;
    *lo = b0 * align < n ? b0 * align : n;
    *hi = b1 * align < n ? b1 * align : n;
}
