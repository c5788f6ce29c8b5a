"""Float references for the ops (fp64 on the tensors' device)."""
import torch

BLOCK = 128


def expand_a_scale(s, m, k):
    if s.numel() == 1:
        return s.reshape(1, 1).double().expand(m, k)
    if s.numel() == m and (s.dim() == 1 or 1 in s.shape):
        return s.reshape(m, 1).double().expand(m, k)
    return s.double().repeat_interleave(BLOCK, dim=1)[:, :k]


def expand_b_scale(s, n, k):
    """scale_b as vLLM passes it ((1,1), (1,N)/(N,1), (K/128, N/128)) → N×K."""
    if s.numel() == 1:
        return s.reshape(1, 1).double().expand(n, k)
    if s.numel() == n and (s.dim() == 1 or 1 in s.shape):
        return s.reshape(n, 1).double().expand(n, k)
    return s.t().double().repeat_interleave(BLOCK, 0).repeat_interleave(BLOCK, 1)[:n, :k]


def scaled_mm_ref(a, b, sa, sb, out_dtype, bias=None, azp_adj=None, azp=None):
    m, k = a.shape
    n = b.shape[1]
    A = a.double() * expand_a_scale(sa, m, k)
    B = b.t().double() * expand_b_scale(sb, n, k)
    out = A @ B.t()
    if azp_adj is not None:
        z = azp.reshape(m, 1).double() if azp is not None else 1.0
        out = out - expand_a_scale(sa, m, 1) * expand_b_scale(sb, n, 1).t() * z * \
            azp_adj.double().reshape(1, n)
    if bias is not None:
        out = out + bias.double()
    return out.to(out_dtype)
