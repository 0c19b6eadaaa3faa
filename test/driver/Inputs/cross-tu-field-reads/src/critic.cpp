#include "rollout.h"

torch::Tensor valueLoss(Agent *agent) { return torch::cat(agent->values).pow(2).mean(); }
