// Recall round 3 reproducer (miss), from zjeffer/alphazero-general-cpp (src/lib/Environment/
// Environment_TicTacToe.cpp 72-90: GetValidMoves calls IsValidMove for every cell; the board is made on the
// device, Device::GetInstance().GetDevice(), line 16), reduced. GetValidMoves runs on every expansion of the
// MCTS search (MCTS.cpp 102).
// The element access (m_board[row][column].item<int>(): two selects and a device-to-host read per cell) is in
// a member helper called once per cell by the loop of another member function; the same access written in the
// loop is reported.
// Expected: a [torch-elementwise-access-in-loop] warning at line 33 (or at the call, line 23); today: none.
#include <torch/torch.h>
#include <memory>
#include <vector>

class Board {
public:
  bool IsValidMove(unsigned row, unsigned column) const;
  std::vector<std::pair<unsigned, unsigned>> GetValidMoves() const;

private:
  torch::Tensor m_board;
};

std::vector<std::pair<unsigned, unsigned>> Board::GetValidMoves() const {
  std::vector<std::pair<unsigned, unsigned>> validMoves;
  for (unsigned row = 0; row < m_board.size(0); ++row) {
    for (unsigned column = 0; column < m_board.size(1); ++column) {
      if (IsValidMove(row, column))
        validMoves.emplace_back(row, column);
    }
  }
  return validMoves;
}

bool Board::IsValidMove(unsigned row, unsigned column) const {
  return m_board[row][column].item<int>() == 0;
}
