/**
 * ftla_dist.h — fault-tolerant distributed routines on ScaLAPACK + MPI (docs/dist.md).
 *
 * Built when MPI and ScaLAPACK are found (FTLA_WITH_MPI=AUTO|ON|OFF), in the library ftla_dist.
 * The arguments are ScaLAPACK's: global 1-based indices (ia, ja), the 9-integer array
 * descriptors (DTYPE_ = 1, CTXT_, M_, N_, MB_, NB_, RSRC_, CSRC_, LLD_), the BLACS context in
 * the descriptors. Every process of the context calls the routine with the same scalars.
 *
 * Return value (the same on every process): 0, FT_ERR_UNCORRECTABLE (an error was detected and
 * could not be corrected: reported, never silent), FT_ERR_UNCHECKED (checks could not be
 * evaluated on finite input), another FT_ERR_* code, or -i when argument i (counting from 1, as
 * ScaLAPACK numbers them) is illegal — -(100 i + j) for entry j of descriptor argument i —
 * which is also reported through ScaLAPACK's PXERBLA (a message, never an abort) and leaves
 * every array untouched.
 */
#ifndef FTLA_DIST_H
#define FTLA_DIST_H

#include "ftla.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * sub(C) := alpha op(sub(A)) op(sub(B)) + beta sub(C), sub(C) = C(ic:ic+m-1, jc:jc+n-1), as
 * PDGEMM (arguments 1-19 as PDGEMM's), computed by PDGEMM and verified by checksum blocks that
 * PDGEMM itself computes (docs/dist.md): errors in sub(C) are located and corrected in place.
 * ctx (NULL = the thread's default) gives the policy and the fault-injection plan of this
 * process; report (may be NULL) receives the counters summed over all processes.
 */
int ft_pdgemm_ex(ft_context_t *ctx, char transa, char transb, int m, int n, int k, double alpha,
                 const double *A, int ia, int ja, const int *descA, const double *B, int ib, int jb,
                 const int *descB, double beta, double *C, int ic, int jc, const int *descC,
                 ft_report_t *report);
int ft_pdgemm(char transa, char transb, int m, int n, int k, double alpha, const double *A, int ia,
              int ja, const int *descA, const double *B, int ib, int jb, const int *descB,
              double beta, double *C, int ic, int jc, const int *descC);

/**
 * QR factorization of sub(A) = A(ia:ia+m-1, ja:ja+n-1) as PDGEQRF (arguments 1-9 and info as
 * PDGEQRF's: the output layout is ScaLAPACK's, so PDORMQR / PDORGQR / PDGELS work on it; the
 * minimum lwork is PDGEQRF's; lwork = -1 is a workspace query answered in work[0] with the
 * optimal size, which includes the work array W — a copy of the local A with the checksum
 * blocks — when that fits in an int, else with PDGEQRF's own). Panel by panel: PDGEQR2 on the
 * panel, its block reflector (PDLARFB) on the trailing matrix and on checksum blocks, verified
 * at the end (policy.verify_every = q > 0: also after every q-th panel, as ft_dgeqrf); errors in
 * R and in the trailing matrix are corrected, an error a panel has consumed is recovered by
 * re-factoring from that panel. W lives in the caller's work when lwork holds it, else in the
 * context's cached host work memory.
 * *info = 0 or -i as PDGEQRF; the return value as above.
 */
int ft_pdgeqrf_ex(ft_context_t *ctx, int m, int n, double *A, int ia, int ja, const int *descA,
                  double *tau, double *work, int lwork, int *info, ft_report_t *report);
int ft_pdgeqrf(int m, int n, double *A, int ia, int ja, const int *descA, double *tau, double *work,
               int lwork, int *info);

#ifdef __cplusplus
}
#endif

#endif
