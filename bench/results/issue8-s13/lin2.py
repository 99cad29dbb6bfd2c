import numpy as np, sys
rng = np.random.default_rng(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
NB = 64
def p2(x):  # power of two >= x
    m, e = np.frexp(x); return np.ldexp(1.0, int(e))
def hess_random(n): return np.triu(rng.standard_normal((n, n)), -1)
def hess_recovery(n):
    A = rng.standard_normal((n, n)); R = np.linalg.qr(A, mode='r'); w = rng.standard_normal(n); H = R.copy()
    for i in range(n - 1, 0, -1):
        a, b = w[i - 1], w[i]; r = np.hypot(a, b); c, s = (1.0, 0.0) if r == 0 else (a / r, b / r)
        w[i - 1] = r; w[i] = 0
        x, y = H[i - 1, i - 1:].copy(), H[i, i - 1:].copy()
        H[i - 1, i - 1:] = c * x + s * y; H[i, i - 1:] = -s * x + c * y
    H[0, n // 3] += w[0]; return H
def hess_graded(n): return hess_random(n) * (2.0 ** (-np.arange(n) * 400.0 / n))[None, :]
def hess_rowgraded(n): return hess_random(n) * (2.0 ** (-np.arange(n) * 400.0 / n))[:, None]
def hess_swap(n):
    H = np.triu(1e-8 * rng.standard_normal((n, n))); H[np.arange(1, n), np.arange(n - 1)] = 1 + 0.1*rng.standard_normal(n-1); return H
def hess_bigupper(n):
    H = np.triu(rng.standard_normal((n, n))); H[np.arange(n), np.arange(n)] *= 1e-6
    H[np.arange(1, n), np.arange(n - 1)] = 1e-6 * rng.standard_normal(n - 1); return H
def run(H, mode):
    n = H.shape[0]; R = H.copy(); global nfb; nfb = [0]
    cs = np.zeros(n - 1); ss = np.zeros(n - 1); res = np.zeros(n - 1); maxw = 0; minsig = 1
    for b0 in range(0, n - 1, NB):
        b1 = min(b0 + NB, n - 1); k = b1 - b0
        if mode == 'inv':
            h = np.array([R[i + 1, i] for i in range(b0, b1)])
            rho = np.array([p2(max(abs(h[i]), abs(R[b0 + i, b0 + i]) if i > 0 else 0, 1e-300)) for i in range(k)])
            t = R[b0, b0:b1].copy()
            L = np.zeros((k, k)); D = np.zeros(k)
            for i in range(k):
                p = 1.0 / (rho[i - 1] if i > 0 else 1.0)  # L'_ij = prod_{l=j+1}^{i-1}(-h_l/rho_l) * H(j+1,i)/rho_j
                for j in range(i - 1, -1, -1):
                    L[i, j] = p * R[b0 + j + 1, b0 + i] if j == i - 1 else p * R[b0 + j + 1, b0 + i] / rho[j]
                    if j == i - 1: L[i, j] = R[b0 + j + 1, b0 + i] / rho[j]
                    else: L[i, j] = q * R[b0 + j + 1, b0 + i] / rho[j]
                    q = (q if j < i - 1 else 1.0) * (-h[j] / rho[j])
                D[i] = np.prod(-h[:i] / rho[:i])
            try:
                W = np.linalg.solve(np.eye(k) - L, np.diag(D))
            except Exception:
                W = np.full((k,k), np.nan)
            maxw = max(maxw, np.max(np.abs(W)))
            X = W @ t
            fb = not np.all(np.isfinite(X))
            tau = 1.0
            for i in range(k):
                tau1 = (X[i] ** 2 + h[i] ** 2 * tau) / rho[i] ** 2
                c = X[i] / (rho[i] * np.sqrt(tau1)); s = h[i] * np.sqrt(tau) / (rho[i] * np.sqrt(tau1))
                cs[b0 + i] = c; ss[b0 + i] = s; tau = tau1; minsig = min(minsig, tau)
                if not (2.0**-600 <= tau1 <= 2.0**600): fb = True
            if fb: nfb[0] += 1; mode_blk = 'seq'
            else: mode_blk = 'inv'
        else: mode_blk = 'seq'
        for i in range(b0, b1):
            x, y = R[i, i:].copy(), R[i + 1, i:].copy()
            if mode_blk == 'seq':
                a, bb = x[0], y[0]; r = np.hypot(a, bb); c, s = (1.0, 0.0) if r == 0 else (a / r, bb / r); cs[i] = c; ss[i] = s
            c, s = cs[i], ss[i]
            R[i, i:] = c * x + s * y; R[i + 1, i:] = -s * x + c * y
            res[i] = R[i + 1, i]; R[i + 1, i] = 0
    bwd = np.sqrt(np.sum(res ** 2)) / np.linalg.norm(H)
    colbwd = np.max(np.abs(res) / np.maximum(np.linalg.norm(H, axis=0)[:-1], 1e-300))
    return bwd, colbwd, maxw, minsig
n = int(sys.argv[1])
with np.errstate(all='ignore'):
  for name, gen in [('random', hess_random), ('recovery', hess_recovery), ('graded', hess_graded), ('rowgraded', hess_rowgraded), ('swap', hess_swap), ('bigupper', hess_bigupper)]:
    H = gen(n)
    b1, r1, _, _ = run(H, 'seq'); b2, r2, mw, ms = run(H, 'inv')
    print(f"{name:9s} n={n} seq bwd {b1:.1e} col {r1:.1e} | inv bwd {b2:.1e} col {r2:.1e}  max|W| {mw:.1e} min tau {ms:.1e} fallback blocks {nfb[0]}", flush=True)
