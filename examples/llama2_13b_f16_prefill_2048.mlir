// Llama-2-13B prefill: one decoder layer, 2048 token(s), f16 weights and activations, f32 accumulation.
// GEMMs and batch GEMMs as linalg on tensors (what a tuning spec configures), plus ops no spec
// matches (fills, an elementwise exp standing in for softmax).
func.func @decoder_layer(%x: tensor<2048x5120xf16>, %wq: tensor<5120x5120xf16>, %wk: tensor<5120x5120xf16>, %wv: tensor<5120x5120xf16>, %wo: tensor<5120x5120xf16>, %wg: tensor<5120x13824xf16>, %wu: tensor<5120x13824xf16>, %wd: tensor<13824x5120xf16>, %q: tensor<40x2048x128xf16>, %kt: tensor<40x128x2048xf16>, %v: tensor<40x2048x128xf16>) -> (tensor<2048x5120xf32>, tensor<2048x5120xf32>, tensor<2048x5120xf32>, tensor<40x2048x128xf32>, tensor<2048x5120xf32>, tensor<2048x13824xf32>, tensor<2048x13824xf32>, tensor<2048x5120xf32>, tensor<81920x128xf32>) {
  %zero = arith.constant 0.0 : f32
  // query projection: 2048x5120x5120
  %q_proj_init = tensor.empty() : tensor<2048x5120xf32>
  %q_proj_acc = linalg.fill ins(%zero : f32) outs(%q_proj_init : tensor<2048x5120xf32>) -> tensor<2048x5120xf32>
  %q_proj = linalg.matmul ins(%x, %wq : tensor<2048x5120xf16>, tensor<5120x5120xf16>) outs(%q_proj_acc : tensor<2048x5120xf32>) -> tensor<2048x5120xf32>
  // key projection: 2048x5120x5120
  %k_proj_init = tensor.empty() : tensor<2048x5120xf32>
  %k_proj_acc = linalg.fill ins(%zero : f32) outs(%k_proj_init : tensor<2048x5120xf32>) -> tensor<2048x5120xf32>
  %k_proj = linalg.matmul ins(%x, %wk : tensor<2048x5120xf16>, tensor<5120x5120xf16>) outs(%k_proj_acc : tensor<2048x5120xf32>) -> tensor<2048x5120xf32>
  // value projection: 2048x5120x5120
  %v_proj_init = tensor.empty() : tensor<2048x5120xf32>
  %v_proj_acc = linalg.fill ins(%zero : f32) outs(%v_proj_init : tensor<2048x5120xf32>) -> tensor<2048x5120xf32>
  %v_proj = linalg.matmul ins(%x, %wv : tensor<2048x5120xf16>, tensor<5120x5120xf16>) outs(%v_proj_acc : tensor<2048x5120xf32>) -> tensor<2048x5120xf32>
  // attention scores Q*K^T: 40x2048x2048x128
  %scores_init = tensor.empty() : tensor<40x2048x2048xf32>
  %scores_acc = linalg.fill ins(%zero : f32) outs(%scores_init : tensor<40x2048x2048xf32>) -> tensor<40x2048x2048xf32>
  %scores = linalg.batch_matmul ins(%q, %kt : tensor<40x2048x128xf16>, tensor<40x128x2048xf16>) outs(%scores_acc : tensor<40x2048x2048xf32>) -> tensor<40x2048x2048xf32>
  // softmax stand-in (elementwise; no spec matches it)
  %probs_init = tensor.empty() : tensor<40x2048x2048xf32>
  %probs = linalg.generic {indexing_maps = [affine_map<(b, m, n) -> (b, m, n)>, affine_map<(b, m, n) -> (b, m, n)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%scores : tensor<40x2048x2048xf32>) outs(%probs_init : tensor<40x2048x2048xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  } -> tensor<40x2048x2048xf32>
  %probs_h_init = tensor.empty() : tensor<40x2048x2048xf16>
  %probs_h = arith.truncf %probs : tensor<40x2048x2048xf32> to tensor<40x2048x2048xf16>
  // attention * V: 40x2048x128x2048
  %attn_init = tensor.empty() : tensor<40x2048x128xf32>
  %attn_acc = linalg.fill ins(%zero : f32) outs(%attn_init : tensor<40x2048x128xf32>) -> tensor<40x2048x128xf32>
  %attn = linalg.batch_matmul ins(%probs_h, %v : tensor<40x2048x2048xf16>, tensor<40x2048x128xf16>) outs(%attn_acc : tensor<40x2048x128xf32>) -> tensor<40x2048x128xf32>
  %attn_out_init = tensor.empty() : tensor<2048x5120xf32>
  %attn_flat = tensor.collapse_shape %attn [[0, 1], [2]] : tensor<40x2048x128xf32> into tensor<81920x128xf32>
  %attn_2d = tensor.empty() : tensor<2048x5120xf16>
  // output projection: 2048x5120x5120
  %o_proj_init = tensor.empty() : tensor<2048x5120xf32>
  %o_proj_acc = linalg.fill ins(%zero : f32) outs(%o_proj_init : tensor<2048x5120xf32>) -> tensor<2048x5120xf32>
  %o_proj = linalg.matmul ins(%attn_2d, %wo : tensor<2048x5120xf16>, tensor<5120x5120xf16>) outs(%o_proj_acc : tensor<2048x5120xf32>) -> tensor<2048x5120xf32>
  // MLP gate projection: 2048x13824x5120
  %gate_init = tensor.empty() : tensor<2048x13824xf32>
  %gate_acc = linalg.fill ins(%zero : f32) outs(%gate_init : tensor<2048x13824xf32>) -> tensor<2048x13824xf32>
  %gate = linalg.matmul ins(%x, %wg : tensor<2048x5120xf16>, tensor<5120x13824xf16>) outs(%gate_acc : tensor<2048x13824xf32>) -> tensor<2048x13824xf32>
  // MLP up projection: 2048x13824x5120
  %up_init = tensor.empty() : tensor<2048x13824xf32>
  %up_acc = linalg.fill ins(%zero : f32) outs(%up_init : tensor<2048x13824xf32>) -> tensor<2048x13824xf32>
  %up = linalg.matmul ins(%x, %wu : tensor<2048x5120xf16>, tensor<5120x13824xf16>) outs(%up_acc : tensor<2048x13824xf32>) -> tensor<2048x13824xf32>
  %act = tensor.empty() : tensor<2048x13824xf16>
  // MLP down projection: 2048x5120x13824
  %down_init = tensor.empty() : tensor<2048x5120xf32>
  %down_acc = linalg.fill ins(%zero : f32) outs(%down_init : tensor<2048x5120xf32>) -> tensor<2048x5120xf32>
  %down = linalg.matmul ins(%act, %wd : tensor<2048x13824xf16>, tensor<13824x5120xf16>) outs(%down_acc : tensor<2048x5120xf32>) -> tensor<2048x5120xf32>
  return %q_proj, %k_proj, %v_proj, %attn, %o_proj, %gate, %up, %down, %attn_flat : tensor<2048x5120xf32>, tensor<2048x5120xf32>, tensor<2048x5120xf32>, tensor<40x2048x128xf32>, tensor<2048x5120xf32>, tensor<2048x13824xf32>, tensor<2048x13824xf32>, tensor<2048x5120xf32>, tensor<81920x128xf32>
}
