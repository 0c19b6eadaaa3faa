// The evidence of a loop from its per-sample graph walks and allocation-site
// counts: what grows per iteration (node types, sites), judged over the same
// samples and with the same Theil-Sen slope as the loop itself.
#include <libtorch_tidy/evidence.h>
#include "text.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <map>
#include <set>

namespace libtorch_tidy {
namespace {

using text::fmt;
using text::jsonNumber;
using text::jsonString;

std::string bytesText(double b) {
  double a = std::fabs(b);
  if (a >= 1024.0 * 1024) return fmt("%.2f MiB", b / (1024.0 * 1024));
  if (a >= 1024.0) return fmt("%.1f KiB", b / 1024.0);
  return fmt("%.0f B", b);
}

std::string perIteration(double v) {
  return std::fabs(v - std::round(v)) < 0.05 ? fmt("%+.0f/it", v) : fmt("%+.1f/it", v);
}

std::string baseName(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string frameText(const Frame& f) {
  if (f.file.empty()) return f.function;
  return f.function + " (" + baseName(f.file) + ":" + std::to_string(f.line) + ")";
}

template <class T>
T median(std::vector<T> v) {
  if (v.empty()) return T{};
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

void graphEvidence(const std::vector<GraphWalk>& walks, const Thresholds& th, Evidence& e) {
  e.graph_sampled = true;
  std::map<std::string, std::vector<double>> counts;
  std::map<std::string, int64_t> depth;
  for (size_t i = 0; i < walks.size(); ++i)
    for (const GraphWalk::Type& t : walks[i].types) {
      auto& c = counts[t.name];
      c.resize(walks.size(), 0);
      c[i] = double(t.count);
      auto d = depth.find(t.name);
      depth[t.name] = d == depth.end() ? t.depth : std::min(d->second, t.depth);
    }
  for (auto& [name, c] : counts) {
    c.resize(walks.size(), 0);
    double slope = theilSenSlope(c);
    if (slope <= 0 || increasingShare(c) < th.consistency) continue;
    e.node_types.push_back({name, slope, int64_t(c.back()), depth[name]});
  }
  std::sort(e.node_types.begin(), e.node_types.end(), [](const NodeTypeGrowth& a, const NodeTypeGrowth& b) {
    return a.depth != b.depth ? a.depth < b.depth : a.type < b.type;
  });
  for (const NodeTypeGrowth& t : e.node_types)
    e.chain += (e.chain.empty() ? "" : " -> ") + t.type + " " + perIteration(t.per_iteration);
  const GraphWalk& last = walks.back();
  e.graph_nodes = last.nodes;
  std::vector<double> seconds;
  int64_t undefined = 0, hooked = 0, cycles = 0;
  std::string cycle_at;
  for (const GraphWalk& w : walks) {
    seconds.push_back(w.seconds);
    e.graph_truncated = e.graph_truncated || w.truncated;
    if (w.undefined_tensors > 0) ++undefined;
    hooked = std::max(hooked, w.hooked_nodes);
    if (w.cycles > 0 && cycle_at.empty()) cycle_at = w.cycle_at;
    cycles = std::max(cycles, w.cycles);
  }
  e.graph_walk_seconds = median(seconds);
  if (undefined > 0)
    e.messages.push_back(fmt("an undefined tensor was probed in %lld of %zu samples: it has no history; "
                             "the other tensors were walked",
                             (long long)undefined, walks.size()));
  if (e.graph_truncated)
    e.messages.push_back(fmt("the graph walk stopped at its node cap (%lld nodes, LIBTORCH_TIDY_GRAPH_MAX_NODES): "
                             "node counts are lower bounds",
                             (long long)last.nodes));
  if (cycles > 0)
    e.messages.push_back("the autograd graph has a cycle (an edge back to " + cycle_at +
                         "): each node was counted once");
  if (hooked > 0)
    e.messages.push_back(fmt("%lld graph nodes carry hooks: what a hook captures is not walked; a hook that "
                             "captures its own tensor keeps the graph alive (a reference cycle)",
                             (long long)hooked));
}

void siteEvidence(const std::vector<TraceCounts>& counts, const Thresholds& th, size_t max_sites, Evidence& e) {
  e.trace_enabled = true;
  std::map<uint32_t, std::vector<double>> series;
  for (size_t i = 0; i < counts.size(); ++i)
    for (const auto& [id, live] : counts[i].live) {
      auto& s = series[id];
      s.resize(counts.size(), 0);
      s[i] = double(live);
    }
  // Candidate stacks: growing ones, most bytes per iteration first (bounded:
  // symbolization costs a DWARF lookup per frame).
  std::vector<std::pair<double, uint32_t>> growing;
  for (auto& [id, s] : series) {
    s.resize(counts.size(), 0);
    double slope = theilSenSlope(s);
    if (slope > 0) growing.emplace_back(slope, id);
  }
  std::sort(growing.rbegin(), growing.rend());
  if (growing.size() > 64) growing.resize(64);
  struct Site {
    std::vector<double> live;
    std::vector<std::string> stack;
  };
  std::map<std::string, Site> sites;
  for (const auto& [slope, id] : growing) {
    std::vector<Frame> frames = traceStack(id);
    auto first = std::find_if(frames.begin(), frames.end(), [](const Frame& f) { return f.user; });
    std::string key;
    std::vector<std::string> stack;
    if (first != frames.end()) {
      key = frameText(*first);
      for (auto f = first; f != frames.end() && stack.size() < 4; ++f)
        if (f->user) stack.push_back(frameText(*f));
      if (first != frames.begin()) stack.push_back("calls " + std::prev(first)->function);
    } else {
      key = "no frame of the program in " + std::to_string(frames.size()) + " frames";
      if (!frames.empty()) key += ": " + frames.back().function;
      for (size_t i = frames.size() >= 3 ? frames.size() - 3 : 0; i < frames.size(); ++i)
        stack.push_back(frameText(frames[i]));
    }
    Site& site = sites[key];
    if (site.stack.empty()) site.stack = stack;
    const std::vector<double>& s = series[id];
    site.live.resize(s.size(), 0);
    for (size_t i = 0; i < s.size(); ++i) site.live[i] += s[i];
  }
  for (auto& [key, site] : sites) {
    double slope = theilSenSlope(site.live);
    if (slope <= 0 || increasingShare(site.live) < th.consistency) continue;
    e.sites.push_back({key, site.stack, slope, int64_t(site.live.back())});
  }
  std::sort(e.sites.begin(), e.sites.end(),
            [](const SiteGrowth& a, const SiteGrowth& b) {
              return a.bytes_per_iteration != b.bytes_per_iteration ? a.bytes_per_iteration > b.bytes_per_iteration
                                                                    : a.site < b.site;
            });
  if (e.sites.size() > max_sites) e.sites.resize(max_sites);
  const TraceCounts& last = counts.back();
  if (std::any_of(counts.begin(), counts.end(), [](const TraceCounts& c) { return c.full; })) {
    e.trace_full = true;
    e.messages.push_back(fmt("the allocation trace buffer is full (%lld distinct stacks, LIBTORCH_TIDY_TRACE_STACKS): "
                             "allocations with a new stack are counted without one (%s live at the last sample); "
                             "the sites are incomplete",
                             (long long)last.stacks, bytesText(double(last.untraced_live_bytes)).c_str()));
  }
}

}  // namespace

Evidence computeEvidence(const EvidenceSamples& samples, int warmup, const Thresholds& th, size_t max_sites) {
  Evidence e;
  auto judged = [&](const auto& v) {
    size_t skip = std::min(v.size(), size_t(std::max(warmup, 0)));
    return std::vector<typename std::decay_t<decltype(v)>::value_type>(v.begin() + skip, v.end());
  };
  if (!samples.graph.empty()) {
    auto walks = judged(samples.graph);
    if (walks.empty()) walks = samples.graph;
    graphEvidence(walks, th, e);
  }
  if (!samples.trace.empty()) {
    auto counts = judged(samples.trace);
    if (counts.empty()) counts = samples.trace;
    siteEvidence(counts, th, max_sites, e);
  }
  return e;
}

std::string culprit(const Evidence& e) {
  std::string out;
  if (!e.sites.empty())
    out = e.sites.front().site + " keeps " + bytesText(e.sites.front().bytes_per_iteration) + "/iteration";
  if (!e.chain.empty()) {
    double nodes = 0;
    for (const NodeTypeGrowth& t : e.node_types) nodes += t.per_iteration;
    out += (out.empty() ? "" : "; ") + std::string("retained graph ") + fmt("%+.0f nodes/it: ", nodes) +
           e.node_types.front().type + (e.node_types.size() > 1 ? " -> ..." : "");
  }
  return out;
}

std::string toTable(const Series& series, const Analysis& a, const Evidence& e) {
  std::string out = toTable(series, a);
  if (a.verdict == Verdict::Growing) {
    std::string c = culprit(e);
    out += "culprit: " + (c.empty() ? std::string("none named (probe tensors, or LIBTORCH_TIDY_TRACE=1)") : c) + "\n";
  }
  if (!e.chain.empty()) out += "retained graph: " + e.chain + "\n";
  for (const SiteGrowth& s : e.sites)
    out += "allocation site: " + s.site + " +" + bytesText(s.bytes_per_iteration) + "/iteration\n";
  for (const std::string& m : e.messages) out += "note: " + m + "\n";
  return out;
}

std::string toJson(const Evidence& e) {
  std::string out = "{\"culprit\":" + jsonString(culprit(e));
  out += ",\"graph\":";
  if (!e.graph_sampled) {
    out += "null";
  } else {
    out += "{\"nodes\":" + std::to_string(e.graph_nodes) + ",\"truncated\":" + (e.graph_truncated ? "true" : "false") +
           ",\"walk_seconds\":" + jsonNumber(e.graph_walk_seconds) + ",\"chain\":" + jsonString(e.chain) +
           ",\"growing_types\":[";
    for (size_t i = 0; i < e.node_types.size(); ++i) {
      const NodeTypeGrowth& t = e.node_types[i];
      out += std::string(i ? "," : "") + "{\"type\":" + jsonString(t.type) +
             ",\"per_iteration\":" + jsonNumber(t.per_iteration) + ",\"last\":" + std::to_string(t.last) +
             ",\"depth\":" + std::to_string(t.depth) + "}";
    }
    out += "],\"saved_bytes_last_iteration\":" +
           (e.saved_bytes_last_iteration < 0 ? std::string("null") : std::to_string(e.saved_bytes_last_iteration)) +
           ",\"saved_bytes_graph\":" +
           (e.saved_bytes_graph < 0 ? std::string("null") : std::to_string(e.saved_bytes_graph)) + "}";
  }
  out += ",\"allocation_sites\":";
  if (!e.trace_enabled) {
    out += "null";
  } else {
    out += std::string("{\"buffer_full\":") + (e.trace_full ? "true" : "false") + ",\"sites\":[";
    for (size_t i = 0; i < e.sites.size(); ++i) {
      const SiteGrowth& s = e.sites[i];
      out += std::string(i ? "," : "") + "{\"site\":" + jsonString(s.site) +
             ",\"bytes_per_iteration\":" + jsonNumber(s.bytes_per_iteration) +
             ",\"live_bytes\":" + std::to_string(s.live_bytes) + ",\"stack\":[";
      for (size_t j = 0; j < s.stack.size(); ++j) out += std::string(j ? "," : "") + jsonString(s.stack[j]);
      out += "]}";
    }
    out += "]}";
  }
  out += ",\"cuda_snapshot\":" + (e.snapshot.empty() ? std::string("null") : jsonString(e.snapshot));
  out += ",\"cpu_snapshot\":" + (e.cpu_snapshot.empty() ? std::string("null") : jsonString(e.cpu_snapshot));
  out += ",\"messages\":[";
  for (size_t i = 0; i < e.messages.size(); ++i) out += std::string(i ? "," : "") + jsonString(e.messages[i]);
  return out + "]}";
}

}  // namespace libtorch_tidy
