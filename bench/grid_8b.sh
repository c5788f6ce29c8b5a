# Sourced by bench/long_tune.sh and bench/cold_tune.sh: the Llama-3.1-8B grid of issue 12's
# acceptance, as `w8a8 bench --model llama3-8b --m $ms` runs it and as bench/peers.py takes it
# ("${shapes[@]}": --shape M,N,K for its four layers at every M).
ms=1,16,64,128,256,512,1024,2048,4096,8192,16384
shapes=()
for m in ${ms//,/ }; do
  for nk in 6144,4096 4096,4096 28672,4096 4096,14336; do shapes+=(--shape "$m,$nk"); done
done
