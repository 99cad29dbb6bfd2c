/* cuda_stub.c — the CUDA entry points of a build without CUDA: they say so. */
#include "backend/backend.h"

const ft_backend_t *ft_backend_cuda(void) { return NULL; }
int ft_cuda_probe(void) { return 0; }
int ft_cuda_is_device_ptr(const void *p) { return 0; }
