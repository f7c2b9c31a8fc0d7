// Llama-3-70B prefill: the GEMMs of one decoder layer, 2048 tokens, bf16 weights and activations,
// f32 accumulation (hidden 8192, FFN 28672, 64 query heads and 8 KV heads of 128). Its shapes are
// those of the CDNA family spec (specs/gfx9), the only default spec of gfx90a.
func.func @decoder_layer(%x: tensor<2048x8192xbf16>, %w_q: tensor<8192x8192xbf16>, %w_k: tensor<8192x1024xbf16>, %w_v: tensor<8192x1024xbf16>, %w_o: tensor<8192x8192xbf16>, %w_gate: tensor<8192x28672xbf16>, %w_up: tensor<8192x28672xbf16>, %w_down: tensor<28672x8192xbf16>, %scores_lhs: tensor<64x2048x128xbf16>, %scores_rhs: tensor<64x128x2048xbf16>, %attn_lhs: tensor<64x2048x2048xbf16>, %attn_rhs: tensor<64x2048x128xbf16>) -> (tensor<2048x8192xf32>, tensor<2048x1024xf32>, tensor<2048x1024xf32>, tensor<2048x8192xf32>, tensor<2048x28672xf32>, tensor<2048x28672xf32>, tensor<2048x8192xf32>, tensor<64x2048x2048xf32>, tensor<64x2048x128xf32>) {
  %zero = arith.constant 0.0 : f32
  // q projection: 2048x8192x8192
  %q_init = tensor.empty() : tensor<2048x8192xf32>
  %q_acc = linalg.fill ins(%zero : f32) outs(%q_init : tensor<2048x8192xf32>) -> tensor<2048x8192xf32>
  %q = linalg.matmul ins(%x, %w_q : tensor<2048x8192xbf16>, tensor<8192x8192xbf16>) outs(%q_acc : tensor<2048x8192xf32>) -> tensor<2048x8192xf32>
  // k projection: 2048x1024x8192
  %k_init = tensor.empty() : tensor<2048x1024xf32>
  %k_acc = linalg.fill ins(%zero : f32) outs(%k_init : tensor<2048x1024xf32>) -> tensor<2048x1024xf32>
  %k = linalg.matmul ins(%x, %w_k : tensor<2048x8192xbf16>, tensor<8192x1024xbf16>) outs(%k_acc : tensor<2048x1024xf32>) -> tensor<2048x1024xf32>
  // v projection: 2048x1024x8192
  %v_init = tensor.empty() : tensor<2048x1024xf32>
  %v_acc = linalg.fill ins(%zero : f32) outs(%v_init : tensor<2048x1024xf32>) -> tensor<2048x1024xf32>
  %v = linalg.matmul ins(%x, %w_v : tensor<2048x8192xbf16>, tensor<8192x1024xbf16>) outs(%v_acc : tensor<2048x1024xf32>) -> tensor<2048x1024xf32>
  %attn_2d = tensor.empty() : tensor<2048x8192xbf16>
  // o projection: 2048x8192x8192
  %o_init = tensor.empty() : tensor<2048x8192xf32>
  %o_acc = linalg.fill ins(%zero : f32) outs(%o_init : tensor<2048x8192xf32>) -> tensor<2048x8192xf32>
  %o = linalg.matmul ins(%attn_2d, %w_o : tensor<2048x8192xbf16>, tensor<8192x8192xbf16>) outs(%o_acc : tensor<2048x8192xf32>) -> tensor<2048x8192xf32>
  // gate projection: 2048x28672x8192
  %gate_init = tensor.empty() : tensor<2048x28672xf32>
  %gate_acc = linalg.fill ins(%zero : f32) outs(%gate_init : tensor<2048x28672xf32>) -> tensor<2048x28672xf32>
  %gate = linalg.matmul ins(%x, %w_gate : tensor<2048x8192xbf16>, tensor<8192x28672xbf16>) outs(%gate_acc : tensor<2048x28672xf32>) -> tensor<2048x28672xf32>
  // up projection: 2048x28672x8192
  %up_init = tensor.empty() : tensor<2048x28672xf32>
  %up_acc = linalg.fill ins(%zero : f32) outs(%up_init : tensor<2048x28672xf32>) -> tensor<2048x28672xf32>
  %up = linalg.matmul ins(%x, %w_up : tensor<2048x8192xbf16>, tensor<8192x28672xbf16>) outs(%up_acc : tensor<2048x28672xf32>) -> tensor<2048x28672xf32>
  %act = tensor.empty() : tensor<2048x28672xbf16>
  // down projection: 2048x8192x28672
  %down_init = tensor.empty() : tensor<2048x8192xf32>
  %down_acc = linalg.fill ins(%zero : f32) outs(%down_init : tensor<2048x8192xf32>) -> tensor<2048x8192xf32>
  %down = linalg.matmul ins(%act, %w_down : tensor<2048x28672xbf16>, tensor<28672x8192xbf16>) outs(%down_acc : tensor<2048x8192xf32>) -> tensor<2048x8192xf32>
  // scores: batch GEMM 64x2048x2048x128
  %scores_init = tensor.empty() : tensor<64x2048x2048xf32>
  %scores_acc = linalg.fill ins(%zero : f32) outs(%scores_init : tensor<64x2048x2048xf32>) -> tensor<64x2048x2048xf32>
  %scores = linalg.batch_matmul ins(%scores_lhs, %scores_rhs : tensor<64x2048x128xbf16>, tensor<64x128x2048xbf16>) outs(%scores_acc : tensor<64x2048x2048xf32>) -> tensor<64x2048x2048xf32>
  // attn: batch GEMM 64x2048x128x2048
  %attn_init = tensor.empty() : tensor<64x2048x128xf32>
  %attn_acc = linalg.fill ins(%zero : f32) outs(%attn_init : tensor<64x2048x128xf32>) -> tensor<64x2048x128xf32>
  %attn = linalg.batch_matmul ins(%attn_lhs, %attn_rhs : tensor<64x2048x2048xbf16>, tensor<64x2048x128xbf16>) outs(%attn_acc : tensor<64x2048x128xf32>) -> tensor<64x2048x128xf32>
  return %q, %k, %v, %o, %gate, %up, %down, %scores, %attn : tensor<2048x8192xf32>, tensor<2048x1024xf32>, tensor<2048x1024xf32>, tensor<2048x8192xf32>, tensor<2048x28672xf32>, tensor<2048x28672xf32>, tensor<2048x8192xf32>, tensor<64x2048x2048xf32>, tensor<64x2048x128xf32>
}
