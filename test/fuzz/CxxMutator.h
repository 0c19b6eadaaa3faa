//===--- CxxMutator.h - libtorch-tidy fuzz targets: C++ mutations -*- C++ -*-===//
//
// Mutations of C++ source that keep it mostly parsable, for the fuzz target of
// the checks (checks.cpp). libFuzzer's byte mutations turn a C++ file into
// noise within a few steps; these work on lines and on brace-balanced line
// ranges (a statement, a loop, a function, a class) instead:
//
//   delete, duplicate, move    a balanced range (or one line)
//   wrap                       a balanced range in a loop, a lambda, a try, a
//                              switch, a template, a class, a namespace...
//   insert                     an idiom: a guard, eval(), backward(), goto, a
//                              self-befriending template, CRTP, a coroutine...
//   rename                     an identifier to another one of the input (a
//                              call becomes recursive, two variables alias)
//   templatize                 a function or class becomes a template
//   std                        toggles the first line's `// c++20` (the target
//                              parses with -std=c++20 when it is there)
//   splice (cross-over)        a balanced range of another input, inserted
//
// and leaves a few in ten mutations to libFuzzer's byte mutations. Braces in
// strings and comments count as braces: the ranges are only a guess, and a
// wrong guess gives an input that does not parse, which is a fine input too.
//
//===----------------------------------------------------------------------===//
#ifndef LIBTORCH_TIDY_TEST_FUZZ_CXXMUTATOR_H
#define LIBTORCH_TIDY_TEST_FUZZ_CXXMUTATOR_H

#include <cctype>
#include <cstdint>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace libtorch_tidy::fuzz {

class CxxMutator {
public:
  explicit CxxMutator(unsigned Seed) : Rng(Seed), Counter(Seed % 100000) {}

  using Lines = std::vector<std::string>;

  static Lines split(std::string_view Text) {
    Lines L;
    size_t Start = 0;
    while (Start < Text.size()) {
      size_t End = Text.find('\n', Start);
      if (End == std::string_view::npos)
        End = Text.size();
      L.emplace_back(Text.substr(Start, End - Start));
      Start = End + 1;
    }
    return L;
  }

  static std::string join(const Lines &L) {
    std::string S;
    for (const std::string &Line : L) {
      S += Line;
      S += '\n';
    }
    return S;
  }

  /// One structural mutation of Text; false when none applied (the caller then
  /// falls back to byte mutations).
  bool mutate(std::string &Text) {
    Lines L = split(Text);
    bool Done = false;
    switch (pick(10)) {
    case 0: Done = deleteRange(L); break;
    case 1: Done = duplicateRange(L); break;
    case 2: Done = moveRange(L); break;
    case 3:
    case 4: Done = wrapRange(L); break;
    case 5:
    case 6: Done = insertIdiom(L); break;
    case 7: Done = renameIdentifier(L); break;
    case 8: Done = templatize(L); break;
    case 9: Done = toggleStandard(L); break;
    }
    if (Done)
      Text = join(L);
    return Done;
  }

  /// Inserts a balanced range of Other into Text at a random line.
  bool splice(std::string &Text, std::string_view Other) {
    Lines L = split(Text), O = split(Other);
    if (O.empty())
      return false;
    auto [B, E] = balancedRange(O);
    size_t At = pick(L.size() + 1);
    L.insert(L.begin() + At, O.begin() + B, O.begin() + E);
    Text = join(L);
    return true;
  }

  size_t pick(size_t N) { return N ? std::uniform_int_distribution<size_t>(0, N - 1)(Rng) : 0; }

private:
  std::mt19937 Rng;
  unsigned Counter;

  static int braceDelta(const std::string &Line) {
    int D = 0;
    for (char C : Line)
      D += C == '{' ? 1 : C == '}' ? -1 : 0;
    return D;
  }

  /// Brace depth at the start of line I.
  static int depthAt(const Lines &L, size_t I) {
    int D = 0;
    for (size_t K = 0; K < I && K < L.size(); ++K)
      D += braceDelta(L[K]);
    return D < 0 ? 0 : D;
  }

  /// [Begin, End) lines whose braces balance and never close more than they
  /// open: a statement, a block, a function. One line when none is found.
  std::pair<size_t, size_t> balancedRange(const Lines &L) {
    if (L.empty())
      return {0, 0};
    size_t B = pick(L.size());
    std::vector<size_t> Ends;
    int D = 0;
    for (size_t K = B; K < L.size() && Ends.size() < 8; ++K) {
      D += braceDelta(L[K]);
      if (D < 0)
        break;
      if (D == 0)
        Ends.push_back(K + 1);
    }
    if (Ends.empty())
      return {B, B + 1};
    return {B, Ends[pick(Ends.size())]};
  }

  bool deleteRange(Lines &L) {
    if (L.empty())
      return false;
    auto [B, E] = balancedRange(L);
    L.erase(L.begin() + B, L.begin() + E);
    return true;
  }

  bool duplicateRange(Lines &L) {
    if (L.empty())
      return false;
    auto [B, E] = balancedRange(L);
    Lines Copy(L.begin() + B, L.begin() + E);
    size_t At = pick(L.size() + 1);
    L.insert(L.begin() + At, Copy.begin(), Copy.end());
    return true;
  }

  bool moveRange(Lines &L) {
    if (L.size() < 2)
      return false;
    auto [B, E] = balancedRange(L);
    Lines Cut(L.begin() + B, L.begin() + E);
    L.erase(L.begin() + B, L.begin() + E);
    size_t At = pick(L.size() + 1);
    L.insert(L.begin() + At, Cut.begin(), Cut.end());
    return true;
  }

  std::string fresh(const char *Stem) { return std::string(Stem) + std::to_string(Counter++); }

  static void replaceAll(std::string &S, std::string_view From, const std::string &To) {
    for (size_t P = S.find(From); P != std::string::npos; P = S.find(From, P + To.size()))
      S.replace(P, From.size(), To);
  }

  bool wrapRange(Lines &L) {
    if (L.empty())
      return false;
    auto [B, E] = balancedRange(L);
    // Statement wrappers inside a body, declaration wrappers at namespace scope.
    static const char *const Statement[][2] = {
        {"for (int @ = 0; @ < 4; ++@) {", "}"},
        {"while (true) {", "}"},
        {"do {", "} while (false);"},
        {"for (auto @ : {1, 2, 3}) {", "}"},
        {"if (true) {", "} else { return; }"},
        {"[&]() {", "}();"},
        {"[&](auto @) { [=]() mutable {", "}(); }(0);"},
        {"try {", "} catch (const std::exception &) { throw; } catch (...) {}"},
        {"switch (0) { case 0:", "[[fallthrough]]; default: break; }"},
        {"{ struct @ { void f() {", "} }; }"},
        {"auto @ = [&]() -> int {", "return 0; }; (void)@();"},
        {"if (auto @ = 1; @) {", "}"},
        {"@: {", "} goto @;"},
    };
    static const char *const Declaration[][2] = {
        {"namespace @ {", "}"},
        {"namespace {", "}"},
        {"template <typename T> struct @ {", "};"},
        {"struct @ {", "};"},
        {"template <typename T> void @() {", "}"},
        {"template <typename T> struct @ : T {", "};"},
        {"extern \"C++\" {", "}"},
        {"inline namespace @ {", "}"},
        {"template <typename T> struct @ { template <typename U> friend struct @;", "};"},
    };
    bool TopLevel = depthAt(L, B) == 0;
    const char *const *W = TopLevel ? Declaration[pick(std::size(Declaration))]
                                    : Statement[pick(std::size(Statement))];
    std::string Name = fresh("w_");
    std::string Open = W[0], Close = W[1];
    replaceAll(Open, "@", Name);
    replaceAll(Close, "@", Name);
    L.insert(L.begin() + E, Close);
    L.insert(L.begin() + B, Open);
    return true;
  }

  bool insertIdiom(Lines &L) {
    static const char *const Statement[] = {
        "torch::NoGradGuard no_grad_@;",
        "torch::AutoGradMode mode_@(false);",
        "model->eval();",
        "model->train();",
        "loss.backward();",
        "optimizer.zero_grad();",
        "optimizer.step();",
        "auto out_@ = model->forward(x);",
        "torch::Tensor t_@ = torch::zeros({2, 2});",
        "total_loss += loss;",
        "history.push_back(loss);",
        "if (x.defined()) return;",
        "return;",
        "break;",
        "continue;",
        "goto end_@; end_@:;",
        "case 1: [[fallthrough]];",
        "default: break;",
        "auto [a_@, b_@] = std::make_pair(1, 2);",
        "for (auto v_@ : {1, 2, 3}) { (void)v_@; }",
        "for (auto &&[k_@, v_@] : std::vector<std::pair<int, int>>{}) { (void)k_@; }",
        "static thread_local int n_@ = 0;",
        "struct L_@ { int f() { return f(); } };",
        "auto f_@ = [&](auto self, int n) -> int { return n ? self(self, n - 1) : 0; };",
        "try { throw 1; } catch (int) { }",
        "if constexpr (sizeof(int) == 4) { }",
        "(void)[&] { return [&] { return [&] { return 0; }(); }(); }();",
        "torch::Tensor y_@ = x * 2 + x;",
        "x = x.to(torch::kCUDA);",
        "model->to(torch::kCUDA);",
        "torch::cuda::synchronize();",
        "std::vector<torch::Tensor> v_@; v_@.push_back(x);",
        "while (false) { }",
        "co_return;",
        "co_await std::suspend_never{};",
        "asm(\"\");",
        "__builtin_unreachable();",
        "throw;",
        "{",
        "}",
    };
    static const char *const Declaration[] = {
        "template <typename T> class Box_@ { template <typename U> friend class Box_@; public: T v; "
        "T get() const { return v; } };",
        "template <typename D> struct Base_@ { void run() { static_cast<D *>(this)->step(); } };\n"
        "struct Derived_@ : Base_@<Derived_@> { void step() { run(); } };",
        "template <typename T> struct Wrap_@ { T v; };\ntemplate <typename T> Wrap_@(T) -> Wrap_@<T>;",
        "template <typename T> concept C_@ = requires(T t) { t.forward(t); };",
        "template <int N> struct Even_@;\ntemplate <int N> struct Odd_@ { static constexpr bool v = "
        "Even_@<N - 1>::v; };\ntemplate <int N> struct Even_@ { static constexpr bool v = N == 0 || "
        "Odd_@<N - 1>::v; };",
        "int rec_@(int n) { return n ? rec_@(n - 1) : 0; }",
        "void a_@(int); void b_@(int n) { a_@(n); } void a_@(int n) { if (n) b_@(n - 1); }",
        "template <typename T> void local_@() { struct In { T t; void f() { t.zero_grad(); } }; }",
        "struct Self_@ { friend struct Self_@; Self_@ *next; };",
        "template <typename... Ts> void pack_@(Ts... ts) { (ts.backward(), ...); }",
        "auto lam_@ = [](auto x) { return [x](auto y) { return [x, y] { return x + y; }; }; };",
        "struct Net_@ : torch::nn::Module { torch::Tensor forward(torch::Tensor x) { return x; } };",
        "namespace std { template <typename R, typename... A> struct coroutine_traits; }",
        "#define LOOP_@(body) for (int i = 0; i < 2; ++i) { body }",
        "using Alias_@ = torch::Tensor;",
        "template <typename T> T var_@ = T();",
        "extern template struct std::vector<int>;",
        "[[noreturn]] void die_@();",
    };
    size_t At = pick(L.size() + 1);
    bool TopLevel = depthAt(L, At) == 0;
    std::string S = TopLevel ? Declaration[pick(std::size(Declaration))]
                             : Statement[pick(std::size(Statement))];
    replaceAll(S, "@", std::to_string(Counter++));
    Lines Add = split(S);
    L.insert(L.begin() + At, Add.begin(), Add.end());
    return true;
  }

  static bool isIdentStart(char C) { return std::isalpha(static_cast<unsigned char>(C)) || C == '_'; }
  static bool isIdent(char C) { return std::isalnum(static_cast<unsigned char>(C)) || C == '_'; }

  bool renameIdentifier(Lines &L) {
    struct Occurrence {
      size_t Line, Col, Len;
    };
    std::vector<Occurrence> Occ;
    std::set<std::string> Names;
    for (size_t I = 0; I < L.size(); ++I) {
      const std::string &S = L[I];
      if (!S.empty() && S[0] == '#')
        continue; // keep directives
      for (size_t C = 0; C < S.size();) {
        if (isIdentStart(S[C]) && (C == 0 || !isIdent(S[C - 1]))) {
          size_t E = C;
          while (E < S.size() && isIdent(S[E]))
            ++E;
          Occ.push_back({I, C, E - C});
          if (Names.size() < 512)
            Names.insert(S.substr(C, E - C));
          C = E;
        } else {
          ++C;
        }
      }
    }
    if (Occ.empty() || Names.size() < 2)
      return false;
    const Occurrence &O = Occ[pick(Occ.size())];
    auto It = Names.begin();
    std::advance(It, pick(Names.size()));
    L[O.Line].replace(O.Col, O.Len, *It);
    return true;
  }

  bool templatize(Lines &L) {
    std::vector<size_t> Candidates;
    for (size_t I = 0, D = 0; I < L.size(); ++I) {
      const std::string &S = L[I];
      bool Opens = S.find('{') != std::string::npos;
      bool Decl = S.find('(') != std::string::npos || S.rfind("struct ", 0) == 0 ||
                  S.rfind("class ", 0) == 0;
      if (D == 0 && Opens && Decl && S.rfind("template", 0) != 0 && S.rfind("namespace", 0) != 0)
        Candidates.push_back(I);
      int N = int(D) + braceDelta(S);
      D = N < 0 ? 0 : size_t(N);
    }
    if (Candidates.empty())
      return false;
    size_t I = Candidates[pick(Candidates.size())];
    static const char *const Heads[] = {"template <typename T_>", "template <int N_ = 0>",
                                        "template <typename... Ts_>", "template <class T_> requires true"};
    L.insert(L.begin() + I, Heads[pick(std::size(Heads))]);
    return true;
  }

  bool toggleStandard(Lines &L) {
    if (!L.empty() && L[0].find("c++20") != std::string::npos)
      L.erase(L.begin());
    else
      L.insert(L.begin(), "// c++20");
    return true;
  }
};

} // namespace libtorch_tidy::fuzz

#endif
