// Recall round 4 reproducer (miss), from ArkarPhyo1310/libtorch_playground (LTPG/Models/Detection/PostProcessor/
// YoloV5/PostProcess.cpp 63-73: the kept detections are copied into DetResult structs one number at a time,
// `outputs.data()[i][k].item().toFloat()`, six reads per box), reduced.
// The element access goes through `outputs.data()` (a call returning a detached alias of `outputs`), not through
// the named tensor itself; the same loop written `outputs[i][k].item()` (boxes_named below) is reported.
// Expected: a [torch-elementwise-access-in-loop] warning at line 18; today: none (line 33, the named form, warns).
#include <torch/torch.h>
#include <vector>

struct DetResult {
  float x1, y1, x2, y2, score, idx;
};

std::vector<DetResult> boxes(torch::Tensor outputs) { // project: outputs = torch::index_select(dets, 0, keep)
  std::vector<DetResult> output;
  for (int i = 0; i < outputs.size(0); i++) {
    DetResult res;
    res.x1 = outputs.data()[i][0].item().toFloat();
    res.y1 = outputs.data()[i][1].item().toFloat();
    res.x2 = outputs.data()[i][2].item().toFloat();
    res.y2 = outputs.data()[i][3].item().toFloat();
    res.score = outputs.data()[i][4].item().toFloat();
    res.idx = outputs.data()[i][5].item().toFloat();
    output.push_back(res);
  }
  return output;
}

std::vector<DetResult> boxes_named(torch::Tensor outputs) {
  std::vector<DetResult> output;
  for (int i = 0; i < outputs.size(0); i++) {
    DetResult res;
    res.x1 = outputs[i][0].item().toFloat();
    res.score = outputs[i][4].item().toFloat();
    output.push_back(res);
  }
  return output;
}
