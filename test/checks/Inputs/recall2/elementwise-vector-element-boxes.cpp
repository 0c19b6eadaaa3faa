// Recall round 2 reproducer (miss), from LMWoo/LibTorchProject (Yolov4/torch_nms.cpp 311-318, the box
// drawing of the YOLO demo's main), reduced. The detections kept by NMS are in a std::vector<torch::Tensor>;
// each box's six numbers are read one at a time with 'output[0][i][k].item()': two selects and a read
// per number, for every box, where an accessor over 'output[0]' (or one copy to the host) would do.
// Expected: a [torch-elementwise-access-in-loop] warning at line 18 (the first access, with a note at the
// loop of line 17); today: none (the page's limitation: the elements of a std::vector<torch::Tensor> are
// not element accesses; with a tensor parameter in place of output[0] the check warns at line 18).
#include <torch/torch.h>
#include <vector>

struct Box {
  float left, top, right, bottom, score;
  int cls;
};

void draw(const std::vector<torch::Tensor> &output, std::vector<Box> &boxes) {
  for (int i = 0; i < output[0].size(0); ++i) {
    float left = output[0][i][0].item().toFloat();
    float top = output[0][i][1].item().toFloat();
    float right = output[0][i][2].item().toFloat();
    float bottom = output[0][i][3].item().toFloat();
    float score = output[0][i][4].item().toFloat();
    int cls = output[0][i][5].item<int>();
    boxes.push_back({left, top, right, bottom, score, cls});
  }
}
