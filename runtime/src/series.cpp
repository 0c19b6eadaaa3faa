#include <libtorch_tidy/series.h>
#include "text.h"

#include <algorithm>
#include <cinttypes>
#include <cstdarg>
#include <cmath>
#include <cstdio>
#include <functional>
#include <sstream>

namespace libtorch_tidy {

double theilSenSlope(const std::vector<double>& y) {
  std::vector<double> slopes;
  slopes.reserve(y.size() * (y.size() - (y.empty() ? 0 : 1)) / 2);
  for (size_t i = 0; i < y.size(); ++i)
    for (size_t j = i + 1; j < y.size(); ++j) slopes.push_back((y[j] - y[i]) / double(j - i));
  if (slopes.empty()) return 0;
  size_t mid = slopes.size() / 2;
  std::nth_element(slopes.begin(), slopes.begin() + mid, slopes.end());
  double upper = slopes[mid];
  if (slopes.size() % 2 == 1) return upper;
  double lower = *std::max_element(slopes.begin(), slopes.begin() + mid);
  return (lower + upper) / 2;
}

double increasingShare(const std::vector<double>& y) {
  size_t up = 0, differing = 0;
  for (size_t i = 0; i < y.size(); ++i)
    for (size_t j = i + 1; j < y.size(); ++j) {
      if (y[j] == y[i]) continue;
      ++differing;
      if (y[j] > y[i]) ++up;
    }
  return differing == 0 ? 0.0 : double(up) / double(differing);
}

namespace {

Trend trendOf(const std::vector<double>& y, double threshold, double consistency) {
  Trend t;
  t.measured = y.size() >= 3;
  if (!t.measured) return t;
  t.slope = theilSenSlope(y);
  t.consistency = increasingShare(y);
  t.growing = t.slope >= threshold && t.consistency >= consistency;
  return t;
}

template <class T>
T median(std::vector<T> v) {
  if (v.empty()) return T{};
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

std::vector<double> column(const std::vector<Sample>& s, const std::function<double(const Sample&)>& f) {
  std::vector<double> out;
  out.reserve(s.size());
  for (const Sample& x : s) out.push_back(f(x));
  return out;
}

using text::fmt;
using text::jsonNumber;
using text::jsonString;

std::string trendJson(const Trend& t) {
  if (!t.measured) return "null";
  return "{\"slope_per_iteration\":" + jsonNumber(t.slope) + ",\"consistency\":" + jsonNumber(t.consistency) +
         ",\"growing\":" + (t.growing ? "true" : "false") + "}";
}

std::string bytesText(double b) {
  double a = std::fabs(b);
  if (a >= 1024.0 * 1024 * 1024) return fmt("%.2f GiB", b / (1024.0 * 1024 * 1024));
  if (a >= 1024.0 * 1024) return fmt("%.2f MiB", b / (1024.0 * 1024));
  if (a >= 1024.0) return fmt("%.1f KiB", b / 1024.0);
  return fmt("%.0f B", b);
}

}  // namespace

Analysis analyze(const Series& series, const Thresholds& th) {
  Analysis a;
  size_t skip = std::min(series.samples.size(), static_cast<size_t>(std::max(series.warmup, 0)));
  std::vector<Sample> s(series.samples.begin() + skip, series.samples.end());
  a.measured = s.size();
  if (s.empty()) return a;
  a.cpu_bytes = trendOf(column(s, [](const Sample& x) { return double(x.cpu_live_bytes); }),
                        th.bytes_per_iteration, th.consistency);
  bool cuda = std::all_of(s.begin(), s.end(), [](const Sample& x) { return x.has_cuda; });
  if (cuda)
    a.cuda_bytes = trendOf(column(s, [](const Sample& x) { return double(x.cuda_allocated_bytes); }),
                           th.bytes_per_iteration, th.consistency);
  bool history = std::all_of(s.begin(), s.end(), [](const Sample& x) { return x.history_nodes >= 0; });
  if (history) {
    a.history = trendOf(column(s, [](const Sample& x) { return double(x.history_nodes); }),
                        th.history_per_iteration, th.consistency);
    a.history_last = s.back().history_nodes;
  }
  std::vector<int64_t> held, cuda_held;
  std::vector<double> seconds;
  for (const Sample& x : s) {
    a.peak_bytes = std::max(a.peak_bytes, x.cpu_peak_bytes);
    held.push_back(x.cpu_live_bytes);
    seconds.push_back(x.seconds);
    if (cuda) {
      a.cuda_peak_bytes = std::max(a.cuda_peak_bytes, x.cuda_peak_allocated_bytes);
      cuda_held.push_back(x.cuda_allocated_bytes);
    }
  }
  a.held_bytes = median(held);
  a.cuda_held_bytes = median(cuda_held);
  a.seconds_per_iteration = median(seconds);
  bool growing = a.cpu_bytes.growing || a.cuda_bytes.growing || a.history.growing;
  a.verdict = growing ? Verdict::Growing : Verdict::Flat;
  return a;
}

Comparison compare(const Series& before, const Series& after, const Thresholds& th) {
  Comparison c;
  c.before = analyze(before, th);
  c.after = analyze(after, th);
  bool b = c.before.verdict == Verdict::Growing, a = c.after.verdict == Verdict::Growing;
  auto faster = [&](const Trend& x, const Trend& y, double threshold) {
    return y.growing && y.slope > 1.25 * std::max(x.slope, 0.0) + threshold;
  };
  if (!a) {
    c.outcome = b ? Outcome::Fixed : Outcome::NoGrowthObserved;
  } else if (!b || faster(c.before.cpu_bytes, c.after.cpu_bytes, th.bytes_per_iteration) ||
             faster(c.before.cuda_bytes, c.after.cuda_bytes, th.bytes_per_iteration) ||
             faster(c.before.history, c.after.history, th.history_per_iteration)) {
    c.outcome = Outcome::Regressed;
  } else {
    c.outcome = Outcome::NotFixed;
  }
  return c;
}

const char* toString(Verdict v) { return v == Verdict::Growing ? "growing" : "flat"; }

const char* toString(Outcome o) {
  switch (o) {
    case Outcome::Fixed: return "fixed";
    case Outcome::NotFixed: return "not fixed";
    case Outcome::Regressed: return "regressed";
    case Outcome::NoGrowthObserved: return "no growth observed";
  }
  return "?";
}

std::string toJson(const Analysis& a) {
  std::string out = "{\"verdict\":\"" + std::string(toString(a.verdict)) + "\"";
  out += ",\"measured\":" + std::to_string(a.measured);
  out += ",\"cpu_bytes\":" + trendJson(a.cpu_bytes);
  out += ",\"cuda_bytes\":" + trendJson(a.cuda_bytes);
  out += ",\"history_nodes\":" + trendJson(a.history);
  out += ",\"peak_bytes\":" + std::to_string(a.peak_bytes);
  out += ",\"held_bytes\":" + std::to_string(a.held_bytes);
  out += ",\"cuda_peak_bytes\":" + std::to_string(a.cuda_peak_bytes);
  out += ",\"cuda_held_bytes\":" + std::to_string(a.cuda_held_bytes);
  out += ",\"history_last\":" + std::to_string(a.history_last);
  out += ",\"seconds_per_iteration\":" + jsonNumber(a.seconds_per_iteration) + "}";
  return out;
}

std::string toJson(const Series& series, const Analysis& a) {
  std::string out = "{\"name\":" + jsonString(series.name) + ",\"warmup\":" + std::to_string(series.warmup) +
                    ",\"analysis\":" + toJson(a) + ",\"samples\":[";
  for (size_t i = 0; i < series.samples.size(); ++i) {
    const Sample& x = series.samples[i];
    if (i) out += ",";
    out += "{\"iteration\":" + std::to_string(x.iteration) + ",\"seconds\":" + jsonNumber(x.seconds) +
           ",\"cpu_live_bytes\":" + std::to_string(x.cpu_live_bytes) +
           ",\"cpu_peak_bytes\":" + std::to_string(x.cpu_peak_bytes) +
           ",\"cpu_allocations\":" + std::to_string(x.cpu_allocations);
    if (x.history_nodes >= 0) out += ",\"history_nodes\":" + std::to_string(x.history_nodes);
    if (x.has_cuda)
      out += ",\"cuda_allocated_bytes\":" + std::to_string(x.cuda_allocated_bytes) +
             ",\"cuda_peak_allocated_bytes\":" + std::to_string(x.cuda_peak_allocated_bytes) +
             ",\"cuda_reserved_bytes\":" + std::to_string(x.cuda_reserved_bytes) +
             ",\"cuda_alloc_retries\":" + std::to_string(x.cuda_alloc_retries) +
             ",\"cuda_ooms\":" + std::to_string(x.cuda_ooms);
    out += "}";
  }
  return out + "]}";
}

std::string toJson(const Comparison& c) {
  return std::string("{\"outcome\":\"") + toString(c.outcome) + "\",\"before\":" + toJson(c.before) +
         ",\"after\":" + toJson(c.after) + "}";
}

std::string toTable(const Series& series, const Analysis& a) {
  std::ostringstream os;
  bool cuda = !series.samples.empty() && series.samples.front().has_cuda;
  os << series.name << " (warm-up " << series.warmup << ")\n";
  os << fmt("%9s %14s %14s %8s %9s", "iteration", "cpu live", "cpu peak", "allocs", "history");
  if (cuda) os << fmt(" %14s %14s", "cuda alloc", "cuda reserved");
  os << fmt(" %10s\n", "ms");
  for (const Sample& x : series.samples) {
    os << fmt("%9" PRId64 " %14" PRId64 " %14" PRId64 " %8" PRId64 " %9s", x.iteration, x.cpu_live_bytes,
              x.cpu_peak_bytes, x.cpu_allocations,
              x.history_nodes >= 0 ? std::to_string(x.history_nodes).c_str() : "-");
    if (cuda) os << fmt(" %14" PRId64 " %14" PRId64, x.cuda_allocated_bytes, x.cuda_reserved_bytes);
    os << fmt(" %10.3f\n", x.seconds * 1e3);
  }
  os << "verdict: " << toString(a.verdict) << " (cpu " << bytesText(a.cpu_bytes.slope) << "/iteration";
  if (a.cuda_bytes.measured) os << ", cuda " << bytesText(a.cuda_bytes.slope) << "/iteration";
  if (a.history.measured) os << fmt(", history %.1f nodes/iteration", a.history.slope);
  os << "; peak " << bytesText(double(a.peak_bytes)) << ", held " << bytesText(double(a.held_bytes)) << ")\n";
  return os.str();
}

std::string toTable(const Comparison& c) {
  std::ostringstream os;
  auto row = [&](const char* what, double b, double a, bool bytes) {
    os << fmt("%-26s %16s %16s\n", what, bytes ? bytesText(b).c_str() : fmt("%.1f", b).c_str(),
              bytes ? bytesText(a).c_str() : fmt("%.1f", a).c_str());
  };
  os << fmt("%-26s %16s %16s\n", "", "before", "after");
  row("cpu bytes/iteration", c.before.cpu_bytes.slope, c.after.cpu_bytes.slope, true);
  if (c.before.cuda_bytes.measured || c.after.cuda_bytes.measured)
    row("cuda bytes/iteration", c.before.cuda_bytes.slope, c.after.cuda_bytes.slope, true);
  if (c.before.history.measured || c.after.history.measured)
    row("history nodes/iteration", c.before.history.slope, c.after.history.slope, false);
  row("cpu peak", double(c.before.peak_bytes), double(c.after.peak_bytes), true);
  row("cpu held", double(c.before.held_bytes), double(c.after.held_bytes), true);
  os << fmt("%-26s %16s %16s\n", "verdict", toString(c.before.verdict), toString(c.after.verdict));
  os << "outcome: " << toString(c.outcome) << "\n";
  return os.str();
}

}  // namespace libtorch_tidy
