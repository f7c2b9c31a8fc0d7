// Llama-2-7B prefill: one decoder layer, 4096 token(s), f16 weights and activations, f32 accumulation.
// GEMMs and batch GEMMs as linalg on tensors (what a tuning spec configures), plus ops no spec
// matches (fills, an elementwise exp standing in for softmax).
// Projection weights are stored [N, K] (out_features x in_features, as a linear layer keeps them),
// so each projection is A*B^T: linalg.matmul with indexing_maps (m, k) x (n, k) -> (m, n).
func.func @decoder_layer(%x: tensor<4096x4096xf16>, %wq: tensor<4096x4096xf16>, %wk: tensor<4096x4096xf16>, %wv: tensor<4096x4096xf16>, %wo: tensor<4096x4096xf16>, %wg: tensor<11008x4096xf16>, %wu: tensor<11008x4096xf16>, %wd: tensor<4096x11008xf16>, %q: tensor<32x4096x128xf16>, %kt: tensor<32x128x4096xf16>, %v: tensor<32x4096x128xf16>) -> (tensor<4096x4096xf32>, tensor<4096x4096xf32>, tensor<4096x4096xf32>, tensor<32x4096x128xf32>, tensor<4096x4096xf32>, tensor<4096x11008xf32>, tensor<4096x11008xf32>, tensor<4096x4096xf32>, tensor<131072x128xf32>) {
  %zero = arith.constant 0.0 : f32
  // query projection: 4096x4096x4096
  %q_proj_init = tensor.empty() : tensor<4096x4096xf32>
  %q_proj_acc = linalg.fill ins(%zero : f32) outs(%q_proj_init : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %q_proj = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%x, %wq : tensor<4096x4096xf16>, tensor<4096x4096xf16>) outs(%q_proj_acc : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  // key projection: 4096x4096x4096
  %k_proj_init = tensor.empty() : tensor<4096x4096xf32>
  %k_proj_acc = linalg.fill ins(%zero : f32) outs(%k_proj_init : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %k_proj = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%x, %wk : tensor<4096x4096xf16>, tensor<4096x4096xf16>) outs(%k_proj_acc : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  // value projection: 4096x4096x4096
  %v_proj_init = tensor.empty() : tensor<4096x4096xf32>
  %v_proj_acc = linalg.fill ins(%zero : f32) outs(%v_proj_init : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %v_proj = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%x, %wv : tensor<4096x4096xf16>, tensor<4096x4096xf16>) outs(%v_proj_acc : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  // attention scores Q*K^T: 32x4096x4096x128
  %scores_init = tensor.empty() : tensor<32x4096x4096xf32>
  %scores_acc = linalg.fill ins(%zero : f32) outs(%scores_init : tensor<32x4096x4096xf32>) -> tensor<32x4096x4096xf32>
  %scores = linalg.batch_matmul ins(%q, %kt : tensor<32x4096x128xf16>, tensor<32x128x4096xf16>) outs(%scores_acc : tensor<32x4096x4096xf32>) -> tensor<32x4096x4096xf32>
  // softmax stand-in (elementwise; no spec matches it)
  %probs_init = tensor.empty() : tensor<32x4096x4096xf32>
  %probs = linalg.generic {indexing_maps = [affine_map<(b, m, n) -> (b, m, n)>, affine_map<(b, m, n) -> (b, m, n)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%scores : tensor<32x4096x4096xf32>) outs(%probs_init : tensor<32x4096x4096xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  } -> tensor<32x4096x4096xf32>
  %probs_h_init = tensor.empty() : tensor<32x4096x4096xf16>
  %probs_h = arith.truncf %probs : tensor<32x4096x4096xf32> to tensor<32x4096x4096xf16>
  // attention * V: 32x4096x128x4096
  %attn_init = tensor.empty() : tensor<32x4096x128xf32>
  %attn_acc = linalg.fill ins(%zero : f32) outs(%attn_init : tensor<32x4096x128xf32>) -> tensor<32x4096x128xf32>
  %attn = linalg.batch_matmul ins(%probs_h, %v : tensor<32x4096x4096xf16>, tensor<32x4096x128xf16>) outs(%attn_acc : tensor<32x4096x128xf32>) -> tensor<32x4096x128xf32>
  %attn_out_init = tensor.empty() : tensor<4096x4096xf32>
  %attn_flat = tensor.collapse_shape %attn [[0, 1], [2]] : tensor<32x4096x128xf32> into tensor<131072x128xf32>
  %attn_2d = tensor.empty() : tensor<4096x4096xf16>
  // output projection: 4096x4096x4096
  %o_proj_init = tensor.empty() : tensor<4096x4096xf32>
  %o_proj_acc = linalg.fill ins(%zero : f32) outs(%o_proj_init : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %o_proj = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%attn_2d, %wo : tensor<4096x4096xf16>, tensor<4096x4096xf16>) outs(%o_proj_acc : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  // MLP gate projection: 4096x11008x4096
  %gate_init = tensor.empty() : tensor<4096x11008xf32>
  %gate_acc = linalg.fill ins(%zero : f32) outs(%gate_init : tensor<4096x11008xf32>) -> tensor<4096x11008xf32>
  %gate = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%x, %wg : tensor<4096x4096xf16>, tensor<11008x4096xf16>) outs(%gate_acc : tensor<4096x11008xf32>) -> tensor<4096x11008xf32>
  // MLP up projection: 4096x11008x4096
  %up_init = tensor.empty() : tensor<4096x11008xf32>
  %up_acc = linalg.fill ins(%zero : f32) outs(%up_init : tensor<4096x11008xf32>) -> tensor<4096x11008xf32>
  %up = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%x, %wu : tensor<4096x4096xf16>, tensor<11008x4096xf16>) outs(%up_acc : tensor<4096x11008xf32>) -> tensor<4096x11008xf32>
  %act = tensor.empty() : tensor<4096x11008xf16>
  // MLP down projection: 4096x4096x11008
  %down_init = tensor.empty() : tensor<4096x4096xf32>
  %down_acc = linalg.fill ins(%zero : f32) outs(%down_init : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %down = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%act, %wd : tensor<4096x11008xf16>, tensor<4096x11008xf16>) outs(%down_acc : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  return %q_proj, %k_proj, %v_proj, %attn, %o_proj, %gate, %up, %down, %attn_flat : tensor<4096x4096xf32>, tensor<4096x4096xf32>, tensor<4096x4096xf32>, tensor<32x4096x128xf32>, tensor<4096x4096xf32>, tensor<4096x11008xf32>, tensor<4096x11008xf32>, tensor<4096x4096xf32>, tensor<131072x128xf32>
}
