import json,sys,collections
for f in sys.argv[1:]:
    rows=[json.loads(l) for l in open(f)]
    keys=collections.defaultdict(dict)
    for j in rows:
        if j.get('type')!='measurement' or j['status']!='ok': continue
        k=(j['m'],j['n'],j['k'])
        keys[k].setdefault(j['config'],{})[j['pass']]=j['us']
    win={ (j['m'],j['n'],j['k']):j['config'] for j in rows if j.get('type')=='winner'}
    for k,cfgs in keys.items():
        pairs=[]
        for c,t in cfgs.items():
            if c.endswith(',trigger=1'):
                p=cfgs.get(c[:-10],{})
                if 2 in t and 2 in p: pairs.append((p[2]/t[2], p[1]/t[1] if 1 in p and 1 in t else 0))
        best_plain=min((t[2],c) for c,t in cfgs.items() if 2 in t and 'trigger' not in c)
        best_var=min(((t[2],c) for c,t in cfgs.items() if 2 in t and 'trigger' in c), default=(0,''))
        print(k, f.split('-')[-1][:-6], 'pairs final speedup', ' '.join(f'{a:.3f}' for a,b in sorted(pairs)), '| best plain %.2f best variant %.2f'%(best_plain[0],best_var[0]), 'winner trig' if 'trigger' in win[k] else '')
print('quick-pass (stream launches) speedups of the variants:')
for f in sys.argv[1:]:
    rows=[json.loads(l) for l in open(f)]
    keys=collections.defaultdict(dict)
    for j in rows:
        if j.get('type')!='measurement' or j['status']!='ok': continue
        keys[(j['m'],j['n'],j['k'])].setdefault(j['config'],{})[j['pass']]=j['us']
    for k,cfgs in keys.items():
        q=[cfgs[c[:-10]][1]/t[1] for c,t in cfgs.items() if c.endswith(',trigger=1') and 1 in t and 1 in cfgs.get(c[:-10],{})]
        print(k, ' '.join(f'{x:.3f}' for x in sorted(q)))
