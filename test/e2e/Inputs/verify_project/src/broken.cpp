// A program that does not link: load_checkpoint() has no definition.
void load_checkpoint(const char *path);

int main() {
  load_checkpoint("model.pt");
  return 0;
}
