import numpy as np, sys
exec(open('lin2.py').read().split("def run(")[0].replace("rng = np.random.default_rng(int(sys.argv[2]) if len(sys.argv) > 2 else 1)", "rng = np.random.default_rng(int(sys.argv[2]) if len(sys.argv) > 2 else 1)"))
K = float(sys.argv[3]) if len(sys.argv) > 3 else 64.0
def run(H, mode):
    n = H.shape[0]; R = H.copy(); nfb = 0; ratios = []
    cs = np.zeros(n - 1); ss = np.zeros(n - 1); res = np.zeros(n - 1)
    for b0 in range(0, n - 1, NB):
        b1 = min(b0 + NB, n - 1); k = b1 - b0; blk = 'seq'
        if mode == 'inv' and k == NB:
            h = np.array([R[i + 1, i] for i in range(b0, b1)])
            d = np.array([abs(R[b0 + i, b0 + i]) if i > 0 else abs(R[b0+1, b0+1]) for i in range(k)])
            rho = np.array([p2(max(abs(h[i]), d[i])) if max(abs(h[i]), d[i]) > 0 else 1.0 for i in range(k)])
            # M and Mabs by the recurrence on unit vectors (as h2t_minv)
            W = np.eye(k); Wa = np.eye(k); M = np.zeros((k, k)); Ma = np.zeros((k, k))
            for p in range(k):
                M[p, :] = W[:, p]; Ma[p, :] = Wa[:, p]   # M[t,k] = F'_t for input k
                hrow = np.zeros(k); hrow[p+1:] = R[b0 + p + 1, b0 + p + 1:b1]
                W = (-h[p] * W + np.outer(W[:, p], hrow)) / rho[p]
                Wa = (abs(h[p]) * Wa + np.outer(Wa[:, p], np.abs(hrow))) / rho[p]
            t = R[b0, b0:b1].copy()
            X = M @ t
            tau = 1.0; ok = np.all(np.isfinite(X)); css = []; rat = 0
            nrm = np.sqrt(np.sum(Ma ** 2, axis=1)) * np.linalg.norm(t)
            for i in range(k):
                tau1 = (X[i] ** 2 + h[i] ** 2 * tau) / rho[i] ** 2
                tn = tau1 * rho[i] ** 2
                c = X[i] / np.sqrt(tn); s = h[i] * np.sqrt(tau) / np.sqrt(tn)
                css.append((c, s)); 
                if not (2.0**-600 <= tau1 <= 2.0**600): ok = False
                r = nrm[i] / np.sqrt(tn) if tn > 0 else np.inf
                rat = max(rat, r); tau = tau1
            ratios.append(rat)
            if ok and rat <= K:
                blk = 'inv'
                for i in range(k): cs[b0 + i], ss[b0 + i] = css[i]
            else: nfb += 1
        for i in range(b0, b1):
            x, y = R[i, i:].copy(), R[i + 1, i:].copy()
            if blk == 'seq':
                a, bb = x[0], y[0]; r = np.hypot(a, bb); c, s = (1.0, 0.0) if r == 0 else (a / r, bb / r); cs[i] = c; ss[i] = s
            c, s = cs[i], ss[i]
            R[i, i:] = c * x + s * y; R[i + 1, i:] = -s * x + c * y
            res[i] = R[i + 1, i]; R[i + 1, i] = 0
    colbwd = np.max(np.abs(res) / np.maximum(np.linalg.norm(H, axis=0)[:-1], 1e-300))
    return colbwd, nfb, ratios
def hess_illcond(n):
    U, _ = np.linalg.qr(rng.standard_normal((n, n))); V, _ = np.linalg.qr(rng.standard_normal((n, n)))
    A = (U * np.logspace(0, -14, n)) @ V.T
    R = np.linalg.qr(A, mode='r'); w = rng.standard_normal(n); H = R.copy()
    for i in range(n - 1, 0, -1):
        a, b = w[i - 1], w[i]; r = np.hypot(a, b); c, s = (1.0, 0.0) if r == 0 else (a / r, b / r)
        w[i - 1] = r; w[i] = 0
        x, y = H[i - 1, i - 1:].copy(), H[i, i - 1:].copy()
        H[i - 1, i - 1:] = c * x + s * y; H[i, i - 1:] = -s * x + c * y
    H[0, n // 3] += w[0]; return H
n = int(sys.argv[1])
with np.errstate(all='ignore'):
  for name, gen in [('random', hess_random), ('recovery', hess_recovery), ('illcond', hess_illcond), ('graded', hess_graded), ('rowgraded', hess_rowgraded), ('swap', hess_swap), ('bigupper', hess_bigupper)]:
    H = gen(n)
    r1, _, _ = run(H, 'seq'); r2, nfb, rats = run(H, 'inv')
    rats = np.array(rats)
    print(f"{name:9s} n={n} K={K:g} seq col {r1:.1e} | inv col {r2:.1e} fallbacks {nfb}/{len(rats)} ratio max {np.max(rats):.1e} median {np.median(rats):.1e}", flush=True)
