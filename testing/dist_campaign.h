/* dist_campaign.h — the fault campaign of the distributed routines (docs/dist.md), shared by
 * test_dist (--campaign) and ft_campaign (--routine dist), and dqrt01's ratios of a gathered
 * factor. Needs MPI, BLACS and ScaLAPACK. */
#ifndef FTLA_DIST_CAMPAIGN_H
#define FTLA_DIST_CAMPAIGN_H

#include <stdint.h>

#define DIST_CAMPAIGN_MAXF 4 /* faults a trial */

/* trials random trials on the squarest grid of all processes (seed: the trials; q:
 * policy.verify_every of ft_pdgeqrf; nf: faults a trial, 1 .. DIST_CAMPAIGN_MAXF, each on the
 * process owning its element), each classified against the fault-free result and the
 * documented limit; the root prints the classes and "N passed, N failed". gemm_regions: the
 * regions ft_pdgemm's faults are drawn from, a mask of 1 << FT_REGION_C / _A / _B (0: C alone,
 * the default, whose random stream is the same as before A and B could be drawn); a trial with
 * a fault in A or B must be reported (the operand digests), else it is silent. Returns the
 * failed trials (the same on every process). */
int dist_campaign(int trials, uint64_t seed, int q, int nf, unsigned gemm_regions);

/* dqrt01's ratios of the gathered factor F (sub-matrix at (ia, ja) of the global M x N, tau
 * gathered likewise) against the original A0 */
void dist_qr_ratios(const double *A0, const double *F, const double *tau, int M, int ia, int ja,
                    int m, int n, double *r1, double *r2);

#endif
