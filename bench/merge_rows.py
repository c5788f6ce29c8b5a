import sqlite3,re,sys
# merge_sql.py SHIPPED.sql NEW.sql: rows of NEW replace SHIPPED's rows of the same key
ship,new=sys.argv[1],sys.argv[2]
def lines(path): return [l for l in open(path) if l.startswith('INSERT INTO measurement_rows')]
oldl=lines(ship); newl=lines(new)
cols=re.match(r'INSERT INTO measurement_rows \(([^)]*)\)',oldl[0]).group(1)
db=sqlite3.connect(':memory:'); db.execute(f'CREATE TABLE measurement_rows ({cols})')
def key_of(line):
    db.execute('DELETE FROM measurement_rows'); db.execute(line)
    return db.execute('SELECT arch,device_name,sm_count,memory_bytes,a_type,b_type,out_type,bias_type,a_scale,b_scale,a_group_rows,a_group_k,b_group_rows,b_group_k,a_k_major,azp,n,k,m_bucket,accum FROM measurement_rows').fetchone()
newkeys={key_of(l) for l in newl}
kept=[l for l in oldl if key_of(l) not in newkeys]
header=[l for l in open(ship) if not l.startswith('INSERT')]
print('shipped',len(oldl),'new',len(newl),'kept',len(kept),'replaced',len(oldl)-len(kept))
open(ship,'w').write(''.join(header)+''.join(kept)+''.join(newl))
