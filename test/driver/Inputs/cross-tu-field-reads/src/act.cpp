#include "rollout.h"

void act(Agent *agent, torch::Tensor obs) {
  auto out = agent->model->forward(obs);
  agent->logProbs.push_back(out.log_softmax(1));
  agent->values.push_back(out.sum(1));
}
