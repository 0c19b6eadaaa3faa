// Mock of <c10/core/Stream.h> and <c10/core/StreamGuard.h> (LibTorch 1.13 .. 2.x).
#pragma once
#include "../../torch/mock_core.h"
namespace c10 {
using DeviceIndex = int8_t;
using StreamId = int64_t;
class Stream {
public:
  enum Unsafe { UNSAFE };
  enum Default { DEFAULT };
  explicit Stream(Unsafe, Device device, StreamId id);
  explicit Stream(Default, Device device);
  bool operator==(const Stream &other) const noexcept;
  Device device() const noexcept;
  DeviceIndex device_index() const noexcept;
  StreamId id() const noexcept;
  bool query() const;
  void synchronize() const;
};
// c10/core/StreamGuard.h
struct StreamGuard {
  explicit StreamGuard() = delete;
  explicit StreamGuard(Stream stream);
  StreamGuard(const StreamGuard &) = delete;
  ~StreamGuard();
  void reset_stream(Stream stream);
  Stream original_stream() const;
  Stream current_stream() const;
};
struct OptionalStreamGuard {
  explicit OptionalStreamGuard() = default;
  explicit OptionalStreamGuard(Stream stream);
  explicit OptionalStreamGuard(optional<Stream> stream_opt);
  ~OptionalStreamGuard();
  void reset_stream(Stream stream);
};
} // namespace c10
