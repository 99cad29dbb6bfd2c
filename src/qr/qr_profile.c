/* qr_profile.c — ft_dgeqrf's phase profile (policy.verbose >= 1, tester --profile; docs/qr.md
 * "Where the time goes"): host-side phases by wall clock, device-side update times by events
 * read two steps late, when they are known to have completed. */
#include "qr/qr_internal.h"

int qr_profile_events(qr_t *g)
{
    for (int s = 0; s < QR_EV_SLOTS; s++)
        for (int w = 0; w < 4; w++) FT_CHECK(ft_call_event(g->call, &g->ev[s][w]));
    return FT_SUCCESS;
}

/* Read the update events of steps [ev_next, upto). Called only where those steps' events have
 * completed (see qr_factor), so event_elapsed does not wait on the device. */
int qr_harvest(qr_t *g, int64_t upto)
{
    for (; g->ev_next < upto; g->ev_next++) {
        const int64_t s = g->ev_next;
        double up = 0.0, la = 0.0, cs = 0.0;
        FT_CHECK(g->be->event_elapsed(qr_ev(g, s, 0), qr_ev(g, s, 2), &up));
        if (g->ev_la[s % QR_EV_SLOTS])
            FT_CHECK(g->be->event_elapsed(qr_ev(g, s, 0), qr_ev(g, s, 1), &la));
        FT_CHECK(g->be->event_elapsed(qr_ev(g, s, 2), qr_ev(g, s, 3), &cs));
        g->ph_update += up > la ? up : la;
        g->ph_csum += cs;
    }
    return FT_SUCCESS;
}

void qr_profile_log(const qr_t *g)
{
    ft_log(g->ctx, 1, "dgeqrf phases: panel_cpu %.3f ms, wait_panel %.3f ms, update_gpu "
           "%.3f ms, checksum %.3f ms, copy_in %.3f ms, copy_out %.3f ms, total %.3f ms",
           1e3 * g->ph_panel, 1e3 * g->ph_wait, 1e3 * g->ph_update, 1e3 * g->ph_csum,
           1e3 * g->ph_in, 1e3 * g->ph_out, 1e3 * (ft_wtime() - g->call->t0));
    const double *h = g->hp;
    ft_log(g->ctx, 1, "dgeqrf host: wait %.3f ms, checks %.3f, panel_lapack %.3f, "
           "v_top %.3f, issue %.3f, issue_checks %.3f, issue_rest %.3f, seals %.3f; "
           "protection (report) %.3f ms", 1e3 * h[QR_HP_WAIT], 1e3 * h[QR_HP_CHECK],
           1e3 * h[QR_HP_PANEL], 1e3 * h[QR_HP_VTOP], 1e3 * h[QR_HP_ISSUE], 1e3 * h[QR_HP_PROT],
           1e3 * h[QR_HP_REST], 1e3 * h[QR_HP_SEAL], 1e3 * g->tprot);
    ft_log(g->ctx, 1, "dgeqrf checks (host clock): encode %.3f ms, check sums %.3f, analysis "
           "%.3f (checksum catch-up %.3f, the blocks' verdicts %.3f), Q verification %.3f",
           1e3 * g->tc_enc, 1e3 * g->tc_sums, 1e3 * g->tc_an, 1e3 * g->tc_catch,
           1e3 * g->tc_blocks, 1e3 * g->tc_q);
    if (g->trec > 0)
        ft_log(g->ctx, 1, "dgeqrf recovery phases (synced): w %.3f ms, J below %.3f, J above "
               "(zero_to_hess) %.3f, column j %.3f, G (hess_to_tri) %.3f, G on checksums %.3f, "
               "checks after %.3f; total recovery %.3f ms", 1e3 * g->ph_rec[QR_RPH_W],
               1e3 * g->ph_rec[QR_RPH_BELOW], 1e3 * g->ph_rec[QR_RPH_Z2H],
               1e3 * g->ph_rec[QR_RPH_COLJ], 1e3 * g->ph_rec[QR_RPH_H2T],
               1e3 * g->ph_rec[QR_RPH_CSUM], 1e3 * g->ph_rec[QR_RPH_CHECK], 1e3 * g->trec);
}
