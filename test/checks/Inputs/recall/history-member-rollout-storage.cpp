// Recall reproducer (issue 35), from lolmanjo/LibTorch_PPO (src/TrainingController.cpp,
// TrainingController::onActionRequired, called for every agent on every game tick by the loop of
// src/Main.cpp), reduced to one file (upstream the loop is in another translation unit).
// Expected: torch-history-in-container at the two push_back calls into the agent's member vectors
// (lines 36 and 37): the policy's log-probability and the critic's value are stored with their
// graphs, one graph per step, until the update, which only reads them through detach(); the
// rollout's forward passes stay alive for nothing (trainingStepLength steps per agent).
//   expected warning (line 36): 'logProbs' keeps a tensor that carries autograd history: the graph of every iteration stays alive as long as 'logProbs' holds it; store a detached tensor [torch-history-in-container]
//   expected warning (line 37): the same for 'values'
#include <torch/torch.h>

#include <tuple>
#include <vector>

struct ModelImpl : torch::nn::Module {
  std::tuple<torch::Tensor, torch::Tensor> forward(torch::Tensor x);
  torch::Tensor logProb(torch::Tensor action);
};
TORCH_MODULE(Model);

struct Agent {
  Model model{nullptr};
  torch::optim::Adam *optimizer;
  std::vector<torch::Tensor> states;
  std::vector<torch::Tensor> logProbs;
  std::vector<torch::Tensor> values;
  std::vector<double> rewards;
};

torch::Tensor onActionRequired(Agent *agent, torch::Tensor input) {
  agent->states.push_back(input);
  auto outputTuple = agent->model->forward(input);
  torch::Tensor actorOutput = std::get<0>(outputTuple)[0];
  torch::Tensor criticOutput = std::get<1>(outputTuple)[0];
  torch::Tensor logProb = agent->model->logProb(actorOutput[0]);
  agent->logProbs.push_back(logProb);
  agent->values.push_back(criticOutput);
  return actorOutput.detach();
}

void optimizePPO(Agent *agent) {
  auto t_values = torch::cat(agent->values).detach();
  auto t_logProbs = torch::cat(agent->logProbs).detach();
  auto t_states = torch::cat(agent->states);
  auto loss = (std::get<1>(agent->model->forward(t_states)) - t_values).pow(2).mean() +
              t_logProbs.mean();
  agent->optimizer->zero_grad();
  loss.backward();
  agent->optimizer->step();
}

void onAgentExecuted(Agent *agent, double reward) {
  agent->rewards.push_back(reward);
  if (agent->rewards.size() < 120)
    return;
  optimizePPO(agent);
  agent->states.clear();
  agent->logProbs.clear();
  agent->values.clear();
  agent->rewards.clear();
}

void run(std::vector<Agent *> &agents, torch::Tensor (*observe)(int), bool (*stop)()) {
  while (!stop()) {
    for (size_t id = 0; id < agents.size(); ++id) {
      auto action = onActionRequired(agents[id], observe(id));
      (void)action;
      onAgentExecuted(agents[id], 1.0);
    }
  }
}
