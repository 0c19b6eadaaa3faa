// Recall reproducer (issue 35), from marmikshah/cyclegan-libtorch (include/imagetools.hpp,
// ImagePool::getImages, called from CycleGAN::Trainer::train once per batch), reduced.
// Expected: torch-history-in-container on the two stores into the member deque (lines 24 and 29):
// the generator's outputs are stored without detach(), so the pool (50 images, kept for the whole
// training) holds the generator's graph of every image it keeps: activations of up to 50 forward
// passes stay alive. The batch returned is detached; only the pool keeps history.
//   expected warning (line 24): 'pool' keeps a tensor that carries autograd history: the graph of every iteration stays alive as long as 'pool' holds it; store a detached tensor [torch-history-in-container]
//   expected warning (line 29): the same
#include <torch/torch.h>

#include <cstdlib>
#include <deque>
#include <vector>

class ImagePool {
  std::deque<torch::Tensor> pool;
  int poolSize = 50;

public:
  torch::Tensor getImages(torch::Tensor images) {
    std::vector<torch::Tensor> batch;
    for (int i = 0; i < images.size(0); i++) {
      if (pool.size() < poolSize) {
        pool.push_back(images[i]);
        batch.push_back(images[i].detach().clone());
      } else {
        int randomIndex = rand() % pool.size();
        torch::Tensor tmp = pool[randomIndex];
        pool[randomIndex] = images[i];
        batch.push_back(tmp.detach().clone());
      }
    }
    return torch::stack(batch);
  }
};

struct GenImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x);
};
TORCH_MODULE(Gen);

void train(Gen &gen, torch::nn::Linear &dis, torch::optim::Adam &optG, torch::optim::Adam &optD,
           ImagePool &pool, std::vector<torch::Tensor> &batches) {
  for (auto &real : batches) {
    auto fake = gen(real);
    auto g_loss = dis(fake).mean();
    optG.zero_grad();
    g_loss.backward();
    optG.step();
    auto pooled = pool.getImages(fake);
    auto d_loss = dis(pooled.detach()).mean() - dis(real).mean();
    optD.zero_grad();
    d_loss.backward();
    optD.step();
  }
}
