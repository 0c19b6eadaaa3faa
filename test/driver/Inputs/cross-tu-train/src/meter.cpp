#include "train.h"

void Meter::record(torch::Tensor loss) { total_ += loss; }
void Meter::record_detached(torch::Tensor loss) { total_ += loss.detach(); }
void Reporter::add(torch::Tensor loss) { sum_ += loss; }
void Buffer::push(torch::Tensor loss) { acc_.add_(loss); }
