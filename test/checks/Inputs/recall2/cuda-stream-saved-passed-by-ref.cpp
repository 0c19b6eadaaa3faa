// Recall round 2 reproducer (wrong category), from cemlyn007/ale-libtorch-ppo (src/ai/ppo/train.h
// 163-195, capture_train_cuda_graph), reduced. The function saves the current stream, switches to a
// warm-up stream, then to a capture stream, and switches back to the saved stream at its end. The
// saved stream is passed by non-const reference to a helper declared in the header and defined in
// another file (stream_sync, which only records and waits on an event): the check then takes the
// saved stream as overwritten and reports both switches as never switched back.
// Expected: at lines 22 and 28 the "switched back only when nothing throws" warning of
// torch-cuda-stream-not-restored (what it gives when stream_sync takes const references), not
// "not switched back on every path out": every normal path switches back to 'legacy_stream'.
//   today: two "is not switched back on every path out of 'capture'" warnings, at lines 22 and 28.
#include <torch/torch.h>
#include <c10/cuda/CUDAStream.h>

void stream_sync(c10::cuda::CUDAStream &dependency, c10::cuda::CUDAStream &dependent);
void train_epochs(torch::Tensor &batch);

void capture(torch::Tensor &batch, int warmup) {
  auto warmup_stream = c10::cuda::getStreamFromPool();
  auto capture_stream = c10::cuda::getStreamFromPool();
  auto legacy_stream = c10::cuda::getCurrentCUDAStream();

  c10::cuda::setCurrentCUDAStream(warmup_stream);
  stream_sync(legacy_stream, warmup_stream);
  for (int i = 0; i < warmup; ++i)
    train_epochs(batch);

  stream_sync(warmup_stream, capture_stream);
  c10::cuda::setCurrentCUDAStream(capture_stream);
  train_epochs(batch);

  stream_sync(capture_stream, legacy_stream);
  c10::cuda::setCurrentCUDAStream(legacy_stream);
}
