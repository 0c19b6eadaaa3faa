// Recall reproducer (issue 35), from marmikshah/cyclegan-libtorch (include/imagetools.hpp,
// tensorToMat, called four times per batch from CycleGAN::Trainer::train to write preview
// images), reduced.
// Expected: torch-sync-in-loop at each call of the helper in the training loop (lines 36 and 37): the
// helper copies the image to the host with .to(torch::kCPU, ...) (and reads its data), so every
// batch waits for the device four times to write previews that are overwritten on the next batch.
//   expected: [torch-sync-in-loop] warnings at lines 36 and 37 (the calls of 'tensorToMat'), with a
//   note at the .to(torch::kCPU, ...) of line 23
#include <torch/torch.h>

#include <string>
#include <vector>

struct Image {
  int width, height;
  unsigned char *data;
};
void imwrite(const std::string &path, const Image &image);

Image tensorToMat(torch::Tensor tensor) {
  int width = tensor.size(2);
  int height = tensor.size(1);
  tensor = tensor.mul(255).permute({1, 2, 0}).to(torch::kCPU, torch::kByte);
  return Image{width, height, tensor.data_ptr<unsigned char>()};
}

void train(torch::nn::Linear &genA, torch::nn::Linear &genB, torch::optim::Adam &optG,
           std::vector<torch::Tensor> &batches, const std::string &previewDir) {
  for (auto &realA : batches) {
    auto fakeB = genA(realA);
    auto fakeA = genB(fakeB);
    auto loss = (fakeA - realA).abs().mean();
    optG.zero_grad();
    loss.backward();
    optG.step();
    imwrite(previewDir + "/realA.png", tensorToMat(realA[0]));
    imwrite(previewDir + "/fakeB.png", tensorToMat(fakeB[0]));
  }
}
