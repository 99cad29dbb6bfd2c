/* backend_cuda_stub.c — the CUDA entry points of a build without CUDA: they say so. */
#include "backend.h"

const ft_backend_t *ft_backend_cuda(void) { return NULL; }
int ft_cuda_probe(void) { return 0; }
int ft_cuda_ctx_init(ft_context_t *ctx) { return FT_ERR_NOT_BUILT; }
void ft_cuda_ctx_fini(ft_context_t *ctx) {}
int ft_cuda_set_stream(ft_context_t *ctx, void *stream) { return FT_ERR_NOT_BUILT; }
size_t ft_cuda_mem_free(void) { return 0; }
int ft_cuda_is_device_ptr(const void *p) { return 0; }
