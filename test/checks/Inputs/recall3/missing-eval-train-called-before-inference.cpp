// Recall round 3 reproducer (miss), from Navifra-Kerry/SemanticSegmentation-Libtorch (src/main.cpp 121-235,
// inference(): train() at 139, the guarded forward at 169), reduced. The inference function loads a DeepLabV3
// checkpoint, then calls segnet->train() (not eval()) before a guarded forward pass: the batch-norm layers of
// the ResNet backbone and of the heads normalise the single image with its own statistics and update the
// running statistics with it, so the mask depends on the image's own mean and variance, not on the trained
// ones. The function never backpropagates (no backward(), no optimizer); it runs under NoGradGuard (guarded
// inference, the page's evaluation code), and the train() call is what the check takes for training code.
// Expected: a [torch-missing-eval] warning at line 40 (the forward pass of a module with batch norm that is in
// training mode); at bb02db5: none (a train() in the function exempted it). Fixed: in evaluation code by its
// name that never backpropagates, train() before the guarded forward is reported (note at the train() call).
#include <torch/torch.h>

#include <string>
#include <unordered_map>

struct SegmentationModelImpl : torch::nn::Module {
  SegmentationModelImpl() {
    bn1 = register_module("bn1", torch::nn::BatchNorm2d(64));
    conv1 = register_module("conv1", torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 64, 7)));
  }
  std::unordered_map<std::string, torch::Tensor> forward(torch::Tensor x) {
    std::unordered_map<std::string, torch::Tensor> out;
    out["out"] = bn1->forward(conv1->forward(x));
    return out;
  }
  torch::nn::BatchNorm2d bn1{nullptr};
  torch::nn::Conv2d conv1{nullptr};
};
TORCH_MODULE(SegmentationModel);

torch::Tensor load_image(const std::string &path);

void inference(const std::string &data_dir, const std::string &modelpath) {
  torch::Device device(torch::kCUDA);
  SegmentationModel segnet;
  torch::load(segnet, modelpath);
  segnet->train();
  segnet->to(device);
  torch::Tensor tensor_image = load_image(data_dir).to(device);
  torch::NoGradGuard no_grad;
  auto out = segnet->forward(tensor_image);
  auto pred = out["out"].argmax(1);
  (void)pred;
}
