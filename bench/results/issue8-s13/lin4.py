import numpy as np, sys
exec(open('lin2.py').read().split("def run(")[0])
src = open('lin3.py').read()
exec("def hess_illcond" + src.split("def hess_illcond")[1].split("n = int(sys.argv[1])")[0])
def run(H, mode):
    n = H.shape[0]; R = H.copy(); nfb = 0; resid_max = 0
    cs = np.zeros(n - 1); ss = np.zeros(n - 1); res = np.zeros(n - 1)
    for b0 in range(0, n - 1, NB):
        b1 = min(b0 + NB, n - 1); k = b1 - b0; blk = 'seq'
        h = np.array([R[i + 1, i] for i in range(b0, b1)])
        t = R[b0, b0:b1].copy()
        if mode == 'chain':
            W = t.copy(); tau = 1.0; eps = 1.0
            for p in range(k):
                F = W[p]; g = h[p]
                tn = F * F + g * g * tau
                if F == 0: c, s = (0.0, 1.0 * np.sign(g) if g != 0 else 0.0)
                else:
                    sg = eps * np.sign(F)
                    c = abs(F) / np.sqrt(tn); s = sg * g * np.sqrt(tau) / np.sqrt(tn)
                    eps = np.sign(F)
                if g == 0: c, s = 1.0, 0.0
                cs[b0 + p] = c; ss[b0 + p] = s
                hrow = np.zeros(k); hrow[p+1:] = R[b0 + p + 1, b0 + p + 1:b1]
                W = -g * W + F * hrow; tau = tn
                if p % 4 == 3:
                    e = np.frexp(tau)[1]; kk = -(e // 2); W *= 2.0 ** kk; tau *= 4.0 ** kk
            blk = 'given'
        elif mode == 'inv' and k == NB:
            d = np.array([abs(R[b0 + i, b0 + i]) if i > 0 else (0.0 if RHO0 == 'h' else abs(R[b0+1, b0+1])) for i in range(k)])
            rho = np.array([p2(max(abs(h[i]), d[i])) if max(abs(h[i]), d[i]) > 0 else 1.0 for i in range(k)])
            W = np.eye(k); M = np.zeros((k, k)); Lp = np.zeros((k, k)); D = np.zeros(k)
            for p in range(k):
                M[p, :] = W[:, p]
                hrow = np.zeros(k); hrow[p+1:] = R[b0 + p + 1, b0 + p + 1:b1]
                W = (-h[p] * W + np.outer(W[:, p], hrow)) / rho[p]
            # L' and D for the residual check: F'_t = D_t c_t + sum_j L'_tj F'_j
            for tt in range(k):
                q = 1.0
                for j in range(tt - 1, -1, -1):
                    Lp[tt, j] = q * R[b0 + j + 1, b0 + tt] / rho[j]
                    q *= -h[j] / rho[j]
                D[tt] = np.prod(-h[:tt] / rho[:tt])
            X = M @ t
            r = X - (Lp @ X + D * t)
            scale = np.abs(Lp) @ np.abs(X) + np.abs(D * t) + np.abs(X)
            rr = np.max(np.abs(r) / np.maximum(scale, 1e-300)) / 2.2e-16
            resid_max = max(resid_max, rr)
            tau = 1.0; ok = np.all(np.isfinite(X)) and rr <= KR; css = []; eps = 1.0
            for i in range(k):
                tau1 = (X[i] ** 2 + h[i] ** 2 * tau) / rho[i] ** 2
                tn = tau1 * rho[i] ** 2
                c = X[i] / np.sqrt(tn); s = h[i] * np.sqrt(tau) / np.sqrt(tn)
                css.append((c, s))
                if not (2.0**-600 <= tau1 <= 2.0**600): ok = False
                tau = tau1
            if ok:
                blk = 'given'
                for i in range(k): cs[b0 + i], ss[b0 + i] = css[i]
            else: nfb += 1
        for i in range(b0, b1):
            x, y = R[i, i:].copy(), R[i + 1, i:].copy()
            if blk == 'seq':
                a, bb = x[0], y[0]; r_ = np.hypot(a, bb); c, s = (1.0, 0.0) if r_ == 0 else (a / r_, bb / r_); cs[i] = c; ss[i] = s
            c, s = cs[i], ss[i]
            R[i, i:] = c * x + s * y; R[i + 1, i:] = -s * x + c * y
            res[i] = R[i + 1, i]; R[i + 1, i] = 0
    colbwd = np.max(np.abs(res) / np.maximum(np.linalg.norm(H, axis=0)[:-1], 1e-300))
    return colbwd, nfb, resid_max
import os; RHO0 = os.environ.get('RHO0', 'd')
n = int(sys.argv[1]); KR = float(sys.argv[3]) if len(sys.argv) > 3 else 1e300
with np.errstate(all='ignore'):
  for name, gen in [x for x in [('random', hess_random), ('recovery', hess_recovery), ('illcond', hess_illcond), ('graded', hess_graded), ('rowgraded', hess_rowgraded), ('swap', hess_swap), ('bigupper', hess_bigupper)] if len(sys.argv) < 5 or x[0] in sys.argv[4].split(',')]:
    H = gen(n)
    r1, _, _ = run(H, 'seq'); r0, _, _ = run(H, 'chain'); r2, nfb, rr = run(H, 'inv')
    print(f"{name:9s} n={n} dlartg col {r1:.1e} | chain col {r0:.1e} | inv col {r2:.1e} fallbacks {nfb} max solve residual {rr:.1e} eps", flush=True)
