// Llama-3.2-3B decode: the projections of one decoder layer, 1 token, f16, f32 accumulation
// (hidden 3072, FFN 8192, 8 KV heads of 128), weights stored [N, K] as linear layers keep them
// (A*B^T). Its shapes are those of the RDNA and NVIDIA family specs (specs/rdna, specs/nvidia).
func.func @decoder_layer(%x: tensor<1x3072xf16>, %w_q: tensor<3072x3072xf16>, %w_k: tensor<1024x3072xf16>, %w_v: tensor<1024x3072xf16>, %w_o: tensor<3072x3072xf16>, %w_gate: tensor<8192x3072xf16>, %w_up: tensor<8192x3072xf16>, %w_down: tensor<3072x8192xf16>) -> (tensor<1x3072xf32>, tensor<1x1024xf32>, tensor<1x1024xf32>, tensor<1x3072xf32>, tensor<1x8192xf32>, tensor<1x8192xf32>, tensor<1x3072xf32>) {
  %zero = arith.constant 0.0 : f32
  // q projection: 1x3072x3072 (A*B^T: weight stored [N, K])
  %q_init = tensor.empty() : tensor<1x3072xf32>
  %q_acc = linalg.fill ins(%zero : f32) outs(%q_init : tensor<1x3072xf32>) -> tensor<1x3072xf32>
  %q = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%x, %w_q : tensor<1x3072xf16>, tensor<3072x3072xf16>) outs(%q_acc : tensor<1x3072xf32>) -> tensor<1x3072xf32>
  // k projection: 1x1024x3072 (A*B^T: weight stored [N, K])
  %k_init = tensor.empty() : tensor<1x1024xf32>
  %k_acc = linalg.fill ins(%zero : f32) outs(%k_init : tensor<1x1024xf32>) -> tensor<1x1024xf32>
  %k = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%x, %w_k : tensor<1x3072xf16>, tensor<1024x3072xf16>) outs(%k_acc : tensor<1x1024xf32>) -> tensor<1x1024xf32>
  // v projection: 1x1024x3072 (A*B^T: weight stored [N, K])
  %v_init = tensor.empty() : tensor<1x1024xf32>
  %v_acc = linalg.fill ins(%zero : f32) outs(%v_init : tensor<1x1024xf32>) -> tensor<1x1024xf32>
  %v = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%x, %w_v : tensor<1x3072xf16>, tensor<1024x3072xf16>) outs(%v_acc : tensor<1x1024xf32>) -> tensor<1x1024xf32>
  %attn_2d = tensor.empty() : tensor<1x3072xf16>
  // o projection: 1x3072x3072 (A*B^T: weight stored [N, K])
  %o_init = tensor.empty() : tensor<1x3072xf32>
  %o_acc = linalg.fill ins(%zero : f32) outs(%o_init : tensor<1x3072xf32>) -> tensor<1x3072xf32>
  %o = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%attn_2d, %w_o : tensor<1x3072xf16>, tensor<3072x3072xf16>) outs(%o_acc : tensor<1x3072xf32>) -> tensor<1x3072xf32>
  // gate projection: 1x8192x3072 (A*B^T: weight stored [N, K])
  %gate_init = tensor.empty() : tensor<1x8192xf32>
  %gate_acc = linalg.fill ins(%zero : f32) outs(%gate_init : tensor<1x8192xf32>) -> tensor<1x8192xf32>
  %gate = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%x, %w_gate : tensor<1x3072xf16>, tensor<8192x3072xf16>) outs(%gate_acc : tensor<1x8192xf32>) -> tensor<1x8192xf32>
  // up projection: 1x8192x3072 (A*B^T: weight stored [N, K])
  %up_init = tensor.empty() : tensor<1x8192xf32>
  %up_acc = linalg.fill ins(%zero : f32) outs(%up_init : tensor<1x8192xf32>) -> tensor<1x8192xf32>
  %up = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%x, %w_up : tensor<1x3072xf16>, tensor<8192x3072xf16>) outs(%up_acc : tensor<1x8192xf32>) -> tensor<1x8192xf32>
  %act = tensor.empty() : tensor<1x8192xf16>
  // down projection: 1x3072x8192 (A*B^T: weight stored [N, K])
  %down_init = tensor.empty() : tensor<1x3072xf32>
  %down_acc = linalg.fill ins(%zero : f32) outs(%down_init : tensor<1x3072xf32>) -> tensor<1x3072xf32>
  %down = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%act, %w_down : tensor<1x8192xf16>, tensor<3072x8192xf16>) outs(%down_acc : tensor<1x3072xf32>) -> tensor<1x3072xf32>
  return %q, %k, %v, %o, %gate, %up, %down : tensor<1x3072xf32>, tensor<1x1024xf32>, tensor<1x1024xf32>, tensor<1x3072xf32>, tensor<1x8192xf32>, tensor<1x8192xf32>, tensor<1x3072xf32>
}
