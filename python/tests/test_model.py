"""A Llama model from transformers, built from a small random config (no weights
downloaded), with every Linear swapped for Fp8Linear: its logits stay close to the bf16
model's. Tolerance: relative Frobenius error of the logits ≤ 0.08 and top-1 agreement ≥ 90 %
of positions (FP8 e4m3 keeps 3 mantissa bits: per-token/per-channel quantization of 2-layer
activations and weights gives a few percent relative error)."""
import pytest
import torch

import w8a8jit

pytestmark = pytest.mark.gpu
transformers = pytest.importorskip("transformers", reason="the model test needs transformers")


@pytest.mark.parametrize("activation,weight", [("token", "channel"), ("tensor", "tensor"),
                                               ("group", "block")])
def test_llama_fp8_logits_close_to_bf16(activation, weight):
    torch.manual_seed(0)
    config = transformers.LlamaConfig(vocab_size=1024, hidden_size=512, intermediate_size=1408,
                                      num_hidden_layers=2, num_attention_heads=8,
                                      num_key_value_heads=4, max_position_embeddings=256)
    model = transformers.LlamaForCausalLM(config).to("cuda", torch.bfloat16).eval()
    ids = torch.randint(0, config.vocab_size, (2, 48), device="cuda")
    with torch.no_grad():
        ref = model(ids).logits.float()
        swapped = w8a8jit.swap_linears(model.model, w8a8jit.Fp8Linear, activation=activation,
                                       weight_granularity=weight)
        assert swapped == 2 * 7  # q k v o gate up down per layer (lm_head stays bf16)
        out = model(ids).logits.float()
    rel = float((out - ref).norm() / ref.norm())
    top1 = float((out.argmax(-1) == ref.argmax(-1)).float().mean())
    print(f"llama fp8 {activation}/{weight}: relative logit error {rel:.4f}, top-1 {top1:.3f}")
    assert rel <= 0.08 and top1 >= 0.9, (rel, top1)
