// Llama-3-8B decode: one decoder layer, 1 token(s), bf16 weights and activations, f32 accumulation.
// GEMMs and batch GEMMs as linalg on tensors (what a tuning spec configures), plus ops no spec
// matches (fills, an elementwise exp standing in for softmax).
func.func @decoder_layer(%x: tensor<1x4096xbf16>, %wq: tensor<4096x4096xbf16>, %wk: tensor<4096x1024xbf16>, %wv: tensor<4096x1024xbf16>, %wo: tensor<4096x4096xbf16>, %wg: tensor<4096x14336xbf16>, %wu: tensor<4096x14336xbf16>, %wd: tensor<14336x4096xbf16>, %q: tensor<32x1x128xbf16>, %kt: tensor<32x128x1xbf16>, %v: tensor<32x1x128xbf16>) -> (tensor<1x4096xf32>, tensor<1x1024xf32>, tensor<1x1024xf32>, tensor<32x1x128xf32>, tensor<1x4096xf32>, tensor<1x14336xf32>, tensor<1x14336xf32>, tensor<1x4096xf32>, tensor<32x128xf32>) {
  %zero = arith.constant 0.0 : f32
  // query projection: 1x4096x4096
  %q_proj_init = tensor.empty() : tensor<1x4096xf32>
  %q_proj_acc = linalg.fill ins(%zero : f32) outs(%q_proj_init : tensor<1x4096xf32>) -> tensor<1x4096xf32>
  %q_proj = linalg.matmul ins(%x, %wq : tensor<1x4096xbf16>, tensor<4096x4096xbf16>) outs(%q_proj_acc : tensor<1x4096xf32>) -> tensor<1x4096xf32>
  // key projection: 1x1024x4096
  %k_proj_init = tensor.empty() : tensor<1x1024xf32>
  %k_proj_acc = linalg.fill ins(%zero : f32) outs(%k_proj_init : tensor<1x1024xf32>) -> tensor<1x1024xf32>
  %k_proj = linalg.matmul ins(%x, %wk : tensor<1x4096xbf16>, tensor<4096x1024xbf16>) outs(%k_proj_acc : tensor<1x1024xf32>) -> tensor<1x1024xf32>
  // value projection: 1x1024x4096
  %v_proj_init = tensor.empty() : tensor<1x1024xf32>
  %v_proj_acc = linalg.fill ins(%zero : f32) outs(%v_proj_init : tensor<1x1024xf32>) -> tensor<1x1024xf32>
  %v_proj = linalg.matmul ins(%x, %wv : tensor<1x4096xbf16>, tensor<4096x1024xbf16>) outs(%v_proj_acc : tensor<1x1024xf32>) -> tensor<1x1024xf32>
  // attention scores Q*K^T: 32x1x1x128
  %scores_init = tensor.empty() : tensor<32x1x1xf32>
  %scores_acc = linalg.fill ins(%zero : f32) outs(%scores_init : tensor<32x1x1xf32>) -> tensor<32x1x1xf32>
  %scores = linalg.batch_matmul ins(%q, %kt : tensor<32x1x128xbf16>, tensor<32x128x1xbf16>) outs(%scores_acc : tensor<32x1x1xf32>) -> tensor<32x1x1xf32>
  // softmax stand-in (elementwise; no spec matches it)
  %probs_init = tensor.empty() : tensor<32x1x1xf32>
  %probs = linalg.generic {indexing_maps = [affine_map<(b, m, n) -> (b, m, n)>, affine_map<(b, m, n) -> (b, m, n)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%scores : tensor<32x1x1xf32>) outs(%probs_init : tensor<32x1x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  } -> tensor<32x1x1xf32>
  %probs_h_init = tensor.empty() : tensor<32x1x1xbf16>
  %probs_h = arith.truncf %probs : tensor<32x1x1xf32> to tensor<32x1x1xbf16>
  // attention * V: 32x1x128x1
  %attn_init = tensor.empty() : tensor<32x1x128xf32>
  %attn_acc = linalg.fill ins(%zero : f32) outs(%attn_init : tensor<32x1x128xf32>) -> tensor<32x1x128xf32>
  %attn = linalg.batch_matmul ins(%probs_h, %v : tensor<32x1x1xbf16>, tensor<32x1x128xbf16>) outs(%attn_acc : tensor<32x1x128xf32>) -> tensor<32x1x128xf32>
  %attn_out_init = tensor.empty() : tensor<1x4096xf32>
  %attn_flat = tensor.collapse_shape %attn [[0, 1], [2]] : tensor<32x1x128xf32> into tensor<32x128xf32>
  %attn_2d = tensor.empty() : tensor<1x4096xbf16>
  // output projection: 1x4096x4096
  %o_proj_init = tensor.empty() : tensor<1x4096xf32>
  %o_proj_acc = linalg.fill ins(%zero : f32) outs(%o_proj_init : tensor<1x4096xf32>) -> tensor<1x4096xf32>
  %o_proj = linalg.matmul ins(%attn_2d, %wo : tensor<1x4096xbf16>, tensor<4096x4096xbf16>) outs(%o_proj_acc : tensor<1x4096xf32>) -> tensor<1x4096xf32>
  // MLP gate projection: 1x14336x4096
  %gate_init = tensor.empty() : tensor<1x14336xf32>
  %gate_acc = linalg.fill ins(%zero : f32) outs(%gate_init : tensor<1x14336xf32>) -> tensor<1x14336xf32>
  %gate = linalg.matmul ins(%x, %wg : tensor<1x4096xbf16>, tensor<4096x14336xbf16>) outs(%gate_acc : tensor<1x14336xf32>) -> tensor<1x14336xf32>
  // MLP up projection: 1x14336x4096
  %up_init = tensor.empty() : tensor<1x14336xf32>
  %up_acc = linalg.fill ins(%zero : f32) outs(%up_init : tensor<1x14336xf32>) -> tensor<1x14336xf32>
  %up = linalg.matmul ins(%x, %wu : tensor<1x4096xbf16>, tensor<4096x14336xbf16>) outs(%up_acc : tensor<1x14336xf32>) -> tensor<1x14336xf32>
  %act = tensor.empty() : tensor<1x14336xbf16>
  // MLP down projection: 1x4096x14336
  %down_init = tensor.empty() : tensor<1x4096xf32>
  %down_acc = linalg.fill ins(%zero : f32) outs(%down_init : tensor<1x4096xf32>) -> tensor<1x4096xf32>
  %down = linalg.matmul ins(%act, %wd : tensor<1x14336xbf16>, tensor<14336x4096xbf16>) outs(%down_acc : tensor<1x4096xf32>) -> tensor<1x4096xf32>
  return %q_proj, %k_proj, %v_proj, %attn, %o_proj, %gate, %up, %down, %attn_flat : tensor<1x4096xf32>, tensor<1x1024xf32>, tensor<1x1024xf32>, tensor<32x1x128xf32>, tensor<1x4096xf32>, tensor<1x14336xf32>, tensor<1x14336xf32>, tensor<1x4096xf32>, tensor<32x128xf32>
}
