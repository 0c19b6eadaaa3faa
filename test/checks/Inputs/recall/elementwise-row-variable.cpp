// Recall reproducer (issue 35), from thisisi3/libtorch-faster-rcnn (test.cpp, the per-detection
// loop that writes COCO results), reduced.
// Expected: torch-elementwise-access-in-loop for 'det_bboxes' (line 28): the loop picks row i into
// a variable and reads its four coordinates with item(), four dispatcher calls (and, for a CUDA
// model, four synchronisations) per detection. 'det_scores[i].item<float>()' in the same loop is
// flagged; the row read through the variable 'bbox' is found since the row-variable rule.
//   expected warning (line 28): tensor 'det_bboxes' is accessed element by element in a loop: each access is a dispatcher call that makes a tensor for one number; read and write the elements through an accessor ('det_bboxes.accessor<T, N>()', CPU) or the data_ptr<T>() of a contiguous tensor [torch-elementwise-access-in-loop]
#include <torch/torch.h>

#include <tuple>
#include <vector>

struct DetectorImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor img);
  std::tuple<torch::Tensor, torch::Tensor> forward_test(torch::Tensor img);
};
TORCH_MODULE(Detector);

void test(Detector &model, std::vector<torch::Tensor> &images, std::vector<float> &results) {
  model->eval();
  torch::NoGradGuard no_grad;
  for (auto &img : images) {
    auto det_res = model->forward_test(img);
    auto det_bboxes = std::get<0>(det_res), det_scores = std::get<1>(det_res);
    for (int i = 0; i < det_bboxes.size(0); i++) {
      auto bbox = det_bboxes[i];
      auto score = det_scores[i].item<float>();
      results.insert(results.end(), {bbox[0].item<float>(), bbox[1].item<float>(),
                                     bbox[2].item<float>(), bbox[3].item<float>(), score});
    }
  }
}
