import json,math,sys,glob
def rows(p):
    out={}
    for l in open(p):
        l=l.strip()
        if l.startswith('{'):
            r=json.loads(l)
            if 'us' in r: out[(r['provider'],r['m'],r['n'],r['k'])]=r
    return out
gm=lambda x: math.exp(sum(map(math.log,x))/len(x))
peer={'tensor-tensor':'torch.tensor.fast','row-row':'torch.row.fast','int8':'torch.int8'}
def table(grid, d, filt=lambda m:True, label=None):
    pe=rows(f'{d}/peers-{grid}.jsonl')
    for g,pp in peer.items():
        f=f'{d}/ours-{grid}-{g}.jsonl'
        try: ours=rows(f)
        except FileNotFoundError: continue
        rs=[];bw=[]
        for (prov,m,n,k),r in ours.items():
            if not filt(m): continue
            p=pe.get((pp,m,n,k)); b=pe.get(('torch.bf16',m,n,k))
            if p: rs.append((p['us']/r['us'],f'{m}x{n}x{k}'))
            if b and grid=='decode': bw.append((r['gbps']/b['gbps'],f'{m}x{n}x{k}'))
        if not rs: continue
        w=min(rs); s=f"| {label or grid} | {g} vs {pp} | {gm([x for x,_ in rs]):.3f} | {w[0]:.3f} at {w[1]} | {len(rs)} |"
        if bw: s+=f" GB/s vs bf16 {gm([x for x,_ in bw]):.3f} (worst {min(bw)[0]:.3f} at {min(bw)[1]})"
        print(s)
table('decode','gpu-session')
table('llama3-small','gpu-session')
table('llama3-8b','8b/gpu-session',lambda m:m>=512,'llama3-8b M>=512')
table('llama3-8b','8b/gpu-session',lambda m:m<=256,'llama3-8b M<=256')
