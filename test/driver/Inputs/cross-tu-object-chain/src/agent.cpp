#include "sac.h"

torch::Tensor Agent::chooseAction(torch::Tensor observation) {
  auto outputActor = actor.sampleNormal(observation);
  return outputActor.first.detach();
}

torch::Tensor Agent::chooseAndKeep(torch::Tensor observation) {
  auto outputActor = actor.sampleAndKeep(observation);
  return outputActor.first.detach();
}
