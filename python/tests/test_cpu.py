"""CPU tests: the package and its data, the struct layouts, argument checking with the
library's messages, the fake (meta) implementations, and the ops' conventions on CPU tensors
(the library's CPU reference) against a float reference. Run in CI (.ci/run)."""
import glob
import json
import os
import shutil
import subprocess

import pytest
import torch

import w8a8jit
from w8a8jit import _lib
from reference import scaled_mm_ref

HERE = os.path.dirname(os.path.abspath(__file__))
HEADER_FROM_PACKAGE = os.path.join(os.path.dirname(w8a8jit.__file__), "include", "w8a8jit.h")
E4M3 = torch.float8_e4m3fn


def rand_fp8(*shape, gen=None):
    return (torch.randn(*shape, generator=gen) * 2).to(E4M3)


def rand_i8(*shape, gen=None):
    return torch.randint(-128, 128, shape, generator=gen, dtype=torch.int8)


# ---- package --------------------------------------------------------------------------------
def test_library_is_bundled_and_self_contained():
    path = w8a8jit.library_path()
    assert path.startswith(os.path.dirname(w8a8jit.__file__)), path
    assert os.path.isfile(path)
    maps = open("/proc/self/maps").read()
    assert "liblua" not in maps and "w8a8jit" in maps
    readelf = shutil.which("readelf")
    if readelf:
        needed = subprocess.run([readelf, "-d", path], capture_output=True, text=True).stdout
        assert "sqlite" not in needed and "lua" not in needed, needed


def test_shipped_caches_are_found_without_environment(tmp_path):
    sql = glob.glob(os.path.join(w8a8jit.shipped_cache_dir(), "*.sql"))
    assert len(sql) >= 3, sql
    cli = os.path.join(os.path.dirname(w8a8jit.__file__), "bin", "w8a8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("W8A8_")}
    env.update(HOME=str(tmp_path), XDG_CACHE_HOME=str(tmp_path))
    run = subprocess.run([cli, "cache", "--json", "list"], env=env,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    sources = {json.loads(line)["source"] for line in run.stdout.splitlines() if line.strip()}
    assert any(s.endswith("h200-sm90.sql") for s in sources), sources
    # the library loaded by Python reads the same folder: explain names an H200 row as foreign
    # data for sm_90 only with a device, so here it is enough that no warning names it
    assert "w8a8jit" not in _lib.lib.w8a8_cache_warnings(_lib.context(None).handle).decode()


def test_templates_are_embedded():
    info = w8a8jit.device_info("cpu")
    assert info["template_dir"] == ""
    assert info["nvrtc_major"] >= 11


def test_struct_layouts_match_the_header(tmp_path):
    cc = shutil.which("cc") or shutil.which("gcc")
    assert cc, "a C compiler is needed to check the ctypes layouts against the header"
    structs = {"w8a8_problem": _lib.Problem, "w8a8_tensors": _lib.Tensors,
               "w8a8_scale_layout": _lib.ScaleLayout,
               "w8a8_context_options": _lib.ContextOptions,
               "w8a8_quant_problem": _lib.QuantProblem,
               "w8a8_quant_tensors": _lib.QuantTensors, "w8a8_explain": _lib.Explain,
               "w8a8_device_info": _lib.DeviceInfo, "w8a8_tune_options": _lib.TuneOptions,
               "w8a8_tune_result": _lib.TuneResult, "w8a8_tune_profile": _lib.TuneProfile,
               "w8a8_tune_report": _lib.TuneReport}
    src = tmp_path / "sizes.c"
    src.write_text('#include <stdio.h>\n#include "w8a8jit.h"\nint main(void){\n' + "".join(
        f'printf("{n} %zu\\n", sizeof({n}));\n' for n in structs) + "return 0;}\n")
    exe = tmp_path / "sizes"
    subprocess.run([cc, "-std=c11", "-I", os.path.dirname(HEADER_FROM_PACKAGE), str(src), "-o",
                    str(exe)], check=True)
    sizes = dict(line.split() for line in subprocess.run([str(exe)], capture_output=True,
                                                          text=True).stdout.splitlines())
    import ctypes
    for name, cls in structs.items():
        assert int(sizes[name]) == ctypes.sizeof(cls), name


# ---- scaled_mm on CPU tensors against the float reference ----------------------------------
SCALE_CASES = [("tensor", "tensor"), ("tensor", "channel"), ("token", "tensor"),
               ("token", "channel"), ("group", "block"), ("group_cm", "block_rm")]


def make_scales(kind_a, kind_b, m, n, k, gen):
    kb, nb = -(-k // 128), -(-n // 128)
    r = lambda *s: torch.rand(*s, generator=gen) * 0.1 + 0.01
    sa = {"tensor": lambda: r(1, 1), "token": lambda: r(m, 1), "group": lambda: r(m, kb),
          "group_cm": lambda: r(kb, m).t()}[kind_a]()
    sb = {"tensor": lambda: r(1, 1), "channel": lambda: r(1, n), "block": lambda: r(kb, nb),
          "block_rm": lambda: r(nb, kb).t()}[kind_b]()
    return sa, sb


@pytest.mark.parametrize("kinds", SCALE_CASES)
@pytest.mark.parametrize("out_dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("fast", [True, False])
def test_scaled_mm_cpu_matches_reference(kinds, out_dtype, fast):
    gen = torch.Generator().manual_seed(1)
    m, n, k = 7, 136, 384
    a = rand_fp8(m, k, gen=gen)
    w = rand_fp8(n, k, gen=gen)
    sa, sb = make_scales(*kinds, m, n, k, gen)
    bias = torch.randn(n, generator=gen).to(out_dtype)
    out = w8a8jit.scaled_mm(a, w.t(), sa, sb, out_dtype, bias=bias, use_fast_accum=fast)
    ref = scaled_mm_ref(a, w.t(), sa, sb, out_dtype, bias=bias)
    assert out.shape == (m, n) and out.dtype == out_dtype
    torch.testing.assert_close(out.float(), ref.float(), rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("per_token_azp", [False, True])
def test_scaled_mm_int8_azp_cpu(per_token_azp):
    gen = torch.Generator().manual_seed(2)
    m, n, k = 5, 64, 96
    a, w = rand_i8(m, k, gen=gen), rand_i8(n, k, gen=gen)
    sa, sb = torch.rand(m, 1, generator=gen) * 0.01, torch.rand(1, n, generator=gen) * 0.01
    colsum = w8a8jit.column_sums(w)
    if per_token_azp:
        azp = torch.randint(-20, 20, (m,), dtype=torch.int32, generator=gen)
        out = w8a8jit.scaled_mm(a, w.t(), sa, sb, torch.float32, azp_adj=colsum, azp=azp)
        ref = scaled_mm_ref(a, w.t(), sa, sb, torch.float32, azp_adj=colsum, azp=azp)
    else:
        adj = (colsum * 7).contiguous()
        out = w8a8jit.scaled_mm(a, w.t(), sa, sb, torch.float32, azp_adj=adj)
        ref = scaled_mm_ref(a, w.t(), sa, sb, torch.float32, azp_adj=adj)
    torch.testing.assert_close(out, ref, rtol=1e-5, atol=1e-4)


# ---- quantize on CPU tensors ----------------------------------------------------------------
def test_quantize_dynamic_modes_cpu():
    gen = torch.Generator().manual_seed(3)
    x = torch.randn(9, 256, generator=gen, dtype=torch.bfloat16)
    q, s = w8a8jit.quantize(x, E4M3, granularity="tensor")
    assert q.dtype == E4M3 and s.shape == (1,)
    torch.testing.assert_close(s, x.float().abs().amax().reshape(1) / 448)
    q, s = w8a8jit.quantize(x, E4M3, granularity="token")
    assert s.shape == (9, 1)
    torch.testing.assert_close(q.float() * s, x.float(), rtol=0.07, atol=0.02)
    q, s = w8a8jit.quantize(x, E4M3, granularity="group", column_major_scales=True)
    assert s.shape == (9, 2) and s.stride(0) == 1
    deq = q.float() * s.repeat_interleave(128, dim=1)
    torch.testing.assert_close(deq, x.float(), rtol=0.07, atol=0.02)
    ub = torch.tensor([0.5])
    _, s = w8a8jit.quantize(x, E4M3, granularity="token", scale_ub=ub)
    assert float(s.max()) <= 0.5 / 448 + 1e-9
    q, s, z = w8a8jit.quantize(x, torch.int8, granularity="token", symmetric=False)
    assert z.shape == (9,) and z.dtype == torch.int32
    torch.testing.assert_close((q.float() - z[:, None]) * s, x.float(), rtol=0, atol=0.03)


def test_quantize_static_and_padding_cpu():
    x = torch.randn(3, 32)
    s = torch.tensor([0.05])
    q, s2 = w8a8jit.quantize(x, torch.int8, scale=s)
    assert s2 is s
    torch.testing.assert_close(q.float(), (x / 0.05).round().clamp(-128, 127))
    q, _ = w8a8jit.quantize(x, E4M3, scale=s, pad_to=16)
    assert q.shape == (16, 32) and bool((q[3:].float() == 0).all())


# ---- errors carry the library's message; nothing runs ---------------------------------------
def test_errors_are_clear():
    a, w = rand_fp8(4, 64), rand_fp8(32, 64)
    one = torch.ones(1, 1)
    with pytest.raises(w8a8jit.InvalidError, match="a must be float8_e4m3fn"):
        w8a8jit.scaled_mm(a.float(), w.t(), one, one, torch.bfloat16)
    with pytest.raises(w8a8jit.InvalidError, match="column-major view"):
        w8a8jit.scaled_mm(a, w.t().contiguous(), one, one, torch.bfloat16)
    with pytest.raises(w8a8jit.InvalidError, match="inner dimensions"):
        w8a8jit.scaled_mm(a, w[:, :48].t(), one, one, torch.bfloat16)
    with pytest.raises(w8a8jit.InvalidError, match="scale_b has shape"):
        w8a8jit.scaled_mm(a, w.t(), one, torch.ones(1, 5), torch.bfloat16)
    with pytest.raises(w8a8jit.InvalidError, match="float32"):
        w8a8jit.scaled_mm(a, w.t(), one.half(), one, torch.bfloat16)
    with pytest.raises(w8a8jit.InvalidError, match="out_dtype"):
        w8a8jit.scaled_mm(a, w.t(), one, one, torch.int32)
    # the library's own message: K must keep 16-byte rows
    a2, w2 = rand_fp8(4, 40), rand_fp8(32, 40)
    with pytest.raises(w8a8jit.InvalidError, match="problem.k: 40") as info:
        w8a8jit.scaled_mm(a2, w2.t(), one, one, torch.bfloat16)
    assert info.value.status == "W8A8_INVALID"
    with pytest.raises(w8a8jit.InvalidError, match="bias"):
        w8a8jit.scaled_mm(a, w.t(), one, one, torch.bfloat16, bias=torch.ones(31))
    with pytest.raises(w8a8jit.InvalidError, match="azp needs azp_adj"):
        w8a8jit.scaled_mm(rand_i8(4, 64), rand_i8(32, 64).t(), one, one, torch.bfloat16,
                          azp=torch.zeros(4, dtype=torch.int32))
    with pytest.raises(w8a8jit.InvalidError, match="is on meta"):
        w8a8jit.scaled_mm(a, w.t(), one, torch.ones(1, 1, device="meta"), torch.bfloat16)
    with pytest.raises(w8a8jit.InvalidError, match="quantize input must be"):
        w8a8jit.quantize(torch.ones(2, 32, dtype=torch.float64))
    with pytest.raises(w8a8jit.InvalidError, match="rows must be contiguous"):
        w8a8jit.quantize(torch.ones(32, 64).t())
    with pytest.raises(w8a8jit.InvalidError, match="granularity"):
        w8a8jit.quantize(torch.ones(2, 32), granularity="channel")


def test_memoized_problems_never_pass_a_bad_call():
    """scaled_mm memoizes validated problems by the tensors' dtypes, shapes, strides and
    devices: after a good call, each argument changed in one way that validation reads must
    still be refused, and a second good call of another layout must compute its own answer."""
    from w8a8jit import ops
    gen = torch.Generator().manual_seed(5)
    m, n, k = 4, 32, 256
    a, w = rand_fp8(m, k, gen=gen), rand_fp8(n, k, gen=gen)
    one = torch.ones(1, 1)
    sa, sb = torch.rand(m, 1, generator=gen), torch.rand(1, n, generator=gen)
    ops._PROBLEMS.clear()
    for _ in range(2):
        w8a8jit.scaled_mm(a, w.t(), one, one, torch.bfloat16)
        w8a8jit.scaled_mm(a, w.t(), sa, sb, torch.bfloat16)
    assert len(ops._PROBLEMS) == 2
    wide = torch.empty(m, 2 * k, dtype=E4M3)[:, ::2]  # same shape, stride (2k, 2)
    with pytest.raises(w8a8jit.InvalidError, match="contiguous rows"):
        w8a8jit.scaled_mm(wide, w.t(), one, one, torch.bfloat16)
    with pytest.raises(w8a8jit.InvalidError, match="column-major view"):
        w8a8jit.scaled_mm(a, w.t().contiguous(), one, one, torch.bfloat16)
    with pytest.raises(w8a8jit.InvalidError, match="float32"):
        w8a8jit.scaled_mm(a, w.t(), sa.half(), sb, torch.bfloat16)
    with pytest.raises(w8a8jit.InvalidError, match="is on meta"):
        w8a8jit.scaled_mm(a, w.t(), sa, sb.to("meta"), torch.bfloat16)
    with pytest.raises(w8a8jit.InvalidError, match="scale_a has shape"):
        w8a8jit.scaled_mm(a, w.t(), torch.rand(m, 2)[:, :1].t(), sb, torch.bfloat16)
    assert len(ops._PROBLEMS) == 2  # refused calls are not kept
    # a view whose rows sit farther apart (lda 2k) is its own problem, with its own answer
    a_wide = torch.empty(m, 2 * k, dtype=E4M3)
    a_wide[:, :k] = a
    a_view = a_wide[:, :k]
    out = w8a8jit.scaled_mm(a_view, w.t(), sa, sb, torch.bfloat16)
    assert len(ops._PROBLEMS) == 3
    torch.testing.assert_close(out, w8a8jit.scaled_mm(a, w.t(), sa, sb, torch.bfloat16))
    ref = scaled_mm_ref(a, w.t(), sa, sb, torch.bfloat16)
    torch.testing.assert_close(out.float(), ref.float(), rtol=1e-2, atol=1e-2)
    # quantization memoizes the same way
    x = torch.randn(64, 64, generator=gen)
    w8a8jit.quantize(x, granularity="token")
    w8a8jit.quantize(x, scale=torch.tensor([0.1]))
    with pytest.raises(w8a8jit.InvalidError, match="rows must be contiguous"):
        w8a8jit.quantize(x.t(), granularity="token")
    with pytest.raises(w8a8jit.InvalidError, match="static scale must be one float32"):
        w8a8jit.quantize(x, scale=torch.tensor([0.1], dtype=torch.float64))
    with pytest.raises(w8a8jit.InvalidError, match="scale_ub must be one float32"):
        w8a8jit.quantize(x, granularity="token", scale_ub=torch.tensor([1.0, 2.0]))
    q, s = w8a8jit.quantize(x, granularity="group", column_major_scales=True)
    q2, s2 = w8a8jit.quantize(x, granularity="group", column_major_scales=True)
    assert torch.equal(q.float(), q2.float()) and torch.equal(s, s2) and s.stride(0) == 1


def test_int8_with_fp8_is_refused_by_the_library():
    with pytest.raises(w8a8jit.Error) as info:
        w8a8jit.scaled_mm(rand_i8(4, 64), rand_fp8(32, 64).t(), torch.ones(1, 1),
                          torch.ones(1, 1), torch.bfloat16)
    assert info.value.status in ("W8A8_INVALID", "W8A8_UNSUPPORTED")
    assert "b_type" in str(info.value) or "int8" in str(info.value)


# ---- fake implementations, opcheck, torch.compile (CPU) ------------------------------------
def test_fake_impls_infer_shapes():
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode():
        a = torch.empty(33, 4096, dtype=E4M3)
        w = torch.empty(1024, 4096, dtype=E4M3)
        out = w8a8jit.scaled_mm(a, w.t(), torch.empty(33, 1), torch.empty(1, 1024),
                                torch.bfloat16)
        assert out.shape == (33, 1024) and out.dtype == torch.bfloat16
        q, s = w8a8jit.quantize(torch.empty(5, 7, 256, dtype=torch.bfloat16),
                                granularity="group", column_major_scales=True)
        assert q.shape == (5, 7, 256) and s.shape == (35, 2)
        with pytest.raises(w8a8jit.InvalidError, match="problem.k"):
            w8a8jit.scaled_mm(torch.empty(2, 40, dtype=E4M3),
                              torch.empty(8, 40, dtype=E4M3).t(),
                              torch.empty(1, 1), torch.empty(1, 1), torch.bfloat16)
    meta = w8a8jit.scaled_mm(torch.empty(3, 64, dtype=E4M3, device="meta"),
                             torch.empty(16, 64, dtype=E4M3, device="meta").t(),
                             torch.empty(1, 1, device="meta"), torch.empty(1, 1, device="meta"),
                             torch.float16)
    assert meta.shape == (3, 16) and meta.device.type == "meta"


def test_eager_calls_match_the_registered_ops():
    """Plain eager calls skip the torch dispatcher (ops._plain_eager); they must give what the
    registered ops give, bit for bit, and tracing must still reach the ops."""
    gen = torch.Generator().manual_seed(7)
    a, w = rand_fp8(5, 128, gen=gen), rand_fp8(24, 128, gen=gen)
    sa, sb = torch.rand(5, 1, generator=gen), torch.rand(1, 24, generator=gen)
    bias = torch.randn(24, generator=gen).to(torch.bfloat16)
    eager = w8a8jit.scaled_mm(a, w.t(), sa, sb, torch.bfloat16, bias=bias)
    op = torch.ops.w8a8jit.scaled_mm.default(a, w.t(), sa, sb, torch.bfloat16, bias, None, None)
    assert torch.equal(eager.view(torch.int16), op.view(torch.int16))
    x = torch.randn(6, 256, generator=gen)
    q, s = w8a8jit.quantize(x, torch.int8, granularity="token")
    q_op, s_op, _ = torch.ops.w8a8jit.quantize_dynamic.default(x, torch.int8, "token", 0, False,
                                                               False, None, 0.0, 0)
    assert torch.equal(q, q_op) and torch.equal(s, s_op)
    q_static = w8a8jit.quantize(x, torch.int8, scale=torch.tensor([0.05]))[0]
    assert torch.equal(q_static, torch.ops.w8a8jit.quantize_static.default(
        x, torch.tensor([0.05]), torch.int8, None, 0))
    from w8a8jit import ops
    assert ops._plain_eager(a, w, sa, None)
    assert not ops._plain_eager(torch.empty(1, device="meta"))
    assert not ops._plain_eager(torch.zeros(2, requires_grad=True))
    graph = torch.fx.experimental.proxy_tensor.make_fx(
        lambda a, w: w8a8jit.scaled_mm(a, w.t(), sa, sb, torch.bfloat16))(a, w)
    assert any("w8a8jit.scaled_mm" in str(n.target) for n in graph.graph.nodes)


def test_opcheck_cpu():
    from torch.library import opcheck
    gen = torch.Generator().manual_seed(4)
    # int8 operands: torch's schema check compares tensors with ops that CPU float8 lacks
    a, w = rand_i8(3, 128, gen=gen), rand_i8(16, 128, gen=gen)
    opcheck(torch.ops.w8a8jit.scaled_mm.default,
            (a, w.t(), torch.rand(3, 1), torch.rand(1, 16), torch.bfloat16, None, None, None))
    opcheck(torch.ops.w8a8jit.scaled_mm.default,
            (a, w.t(), torch.rand(3, 1), torch.rand(1, 16), torch.float32, torch.rand(16),
             w8a8jit.column_sums(w), torch.randint(-5, 5, (3,), dtype=torch.int32)))
    a8, w8 = rand_fp8(3, 128, gen=gen), rand_fp8(16, 128, gen=gen)
    opcheck(torch.ops.w8a8jit.scaled_mm.default,
            (a8, w8.t(), torch.rand(1, 1), torch.rand(1, 16), torch.bfloat16, None, None, None),
            test_utils=("test_faketensor", "test_autograd_registration",
                        "test_aot_dispatch_dynamic"))
    x = torch.randn(4, 64)
    opcheck(torch.ops.w8a8jit.quantize_dynamic.default,
            (x, torch.int8, "token", 0, False, True, None, 0.0, 0))
    opcheck(torch.ops.w8a8jit.quantize_static.default, (x, torch.tensor([0.1]), torch.int8,
                                                       None, 0))


def test_compile_module_cpu():
    torch._dynamo.reset()
    lin = torch.nn.Linear(128, 64, bias=True)
    mod = w8a8jit.Fp8Linear.from_linear(lin, activation="token", weight_granularity="channel")
    x = torch.randn(2, 5, 128)
    eager = mod(x)
    compiled = torch.compile(mod, backend="aot_eager", fullgraph=True)(x)
    torch.testing.assert_close(compiled, eager)
    torch.testing.assert_close(eager, lin(x).detach(), rtol=0.1, atol=0.1)


@pytest.mark.parametrize("activation,weight", [("tensor", "tensor"), ("token", "channel"),
                                               ("group", "block"), ("static", "channel")])
def test_fp8_linear_cpu(activation, weight):
    torch.manual_seed(5)
    lin = torch.nn.Linear(256, 160)
    kwargs = {"input_scale": torch.tensor(3.0 / 448)} if activation == "static" else {}
    mod = w8a8jit.Fp8Linear.from_linear(lin, activation=activation, weight_granularity=weight,
                                        **kwargs)
    x = torch.randn(3, 256).clamp(-3, 3)
    rel = (mod(x) - lin(x)).norm() / lin(x).norm()
    assert float(rel) < 0.06, float(rel)


@pytest.mark.parametrize("symmetric", [True, False])
def test_int8_linear_cpu(symmetric):
    torch.manual_seed(6)
    lin = torch.nn.Linear(128, 64)
    mod = w8a8jit.Int8Linear.from_linear(lin, symmetric=symmetric)
    x = torch.randn(4, 128) + 0.5
    rel = (mod(x) - lin(x)).norm() / lin(x).norm()
    assert float(rel) < 0.03, float(rel)


def test_vllm_signatures_cpu():
    from w8a8jit import vllm
    gen = torch.Generator().manual_seed(7)
    x = torch.randn(6, 256, generator=gen, dtype=torch.bfloat16)
    q, s = vllm.scaled_fp8_quant(x, use_per_token_if_dynamic=True)
    assert q.shape == (6, 256) and s.shape == (6, 1)
    q, s = vllm.scaled_fp8_quant(x, num_token_padding=16)
    assert q.shape == (16, 256)
    qi, si, zi = vllm.scaled_int8_quant(x, symmetric=False)
    assert zi.shape == (6,)
    w = rand_fp8(128, 256, gen=gen)
    sw = torch.rand(1, 256 // 128, generator=gen)
    qg, sg = vllm.per_token_group_quant_fp8(x, 128)
    out = vllm.w8a8_block_fp8_matmul(qg, w, sg, sw, [128, 128], torch.bfloat16)
    ref = scaled_mm_ref(qg, w.t(), sg, sw.t(), torch.bfloat16)
    torch.testing.assert_close(out.float(), ref.float(), rtol=1e-2, atol=1e-2)
    assert vllm.cutlass_scaled_mm_supports_fp8(80) and vllm.cutlass_scaled_mm_supports_fp8(90)
    assert not vllm.cutlass_scaled_mm_supports_fp8(75)
    assert vllm.cutlass_scaled_mm_supports_block_fp8(86)
    assert not vllm.cutlass_scaled_mm_supports_block_fp8(75)


def test_weight_utilities_cpu():
    w = rand_fp8(48, 64)
    scales = torch.tensor([0.5, 1.0, 0.25])
    out, s = w8a8jit.requantize_fused(w, [16, 16, 16], scales)
    assert float(s) == 1.0
    torch.testing.assert_close(out[16:32].float(), w[16:32].float())
    torch.testing.assert_close(out[:16].float(), (w[:16].float() * 0.5).to(E4M3).float())
    ch = w8a8jit.expand_scales([2, 3], torch.tensor([0.5, 2.0]))
    assert ch.flatten().tolist() == [0.5, 0.5, 2.0, 2.0, 2.0]


def test_explain_and_tune_mode_cpu():
    e = w8a8jit.explain(1, 4096, 4096, device="cpu")
    assert e["family"] == "reference_gemm" and e["m_bucket"] == 1
    w8a8jit.set_tune_mode("record", device="cpu")
    with pytest.raises(w8a8jit.InvalidError, match="sometimes|tune"):
        w8a8jit.set_tune_mode("sometimes", device="cpu")
    with pytest.raises(w8a8jit.NoDeviceError):
        w8a8jit.tune([(16, 4096, 4096)], device="cpu")
    for settle in (-1, 1001):  # checked before the device is looked for
        with pytest.raises(w8a8jit.InvalidError, match="settle_ms"):
            w8a8jit.tune([(16, 4096, 4096)], settle_ms=settle, device="cpu")
    with pytest.raises(w8a8jit.InvalidError, match="seed goes with space"):
        w8a8jit.tune([(16, 4096, 4096)], seed=True, device="cpu")
