import re,sys,statistics as st
rows={}
for f in sys.argv[1:]:
    meth=None
    for line in open(f):
        m=re.match(r"% phases (\S+), call",line)
        if m: meth=m.group(1); continue
        if line.startswith("ftla: dgeqrf host:") and meth:
            v=[float(x) for x in re.findall(r"([0-9.]+)(?: ms)?[,;]",line)]
            tot=None
            rows.setdefault((f,meth),[]).append(v)
        m=re.match(r"ftla: dgeqrf phases:.*total ([0-9.]+) ms",line)
        if m and meth: rows.setdefault((f,meth+"_tot"),[]).append(float(m.group(1)))
names="wait checks lapack vtop issue iss_chk iss_rest seals prot".split()
for k,v in sorted(rows.items()):
    if k[1].endswith("_tot"): print(k, "total med %.1f"%st.median(v), [round(x) for x in v]); continue
    med=[st.median(c) for c in zip(*v)]
    nonl=[sum(r[i] for i in (0,1,3,4,5,6,7)) for r in v]
    print(k[0].split('/')[-1],k[1].ljust(12)," ".join("%s %.1f"%(n,x) for n,x in zip(names,med)), "| non-lapack med %.1f"%st.median(nonl), [round(x,1) for x in nonl])
