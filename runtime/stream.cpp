#include "runtime/stream.h"

namespace ember {

bool Event::query() const {
  if (!stream_) return true;
  // Polling must make progress: work still being recorded would otherwise never complete.
  if (stream_->submitted_value() < value_) stream_->flush();
  return stream_->completed_value() >= value_;
}

void Event::synchronize() const {
  if (stream_) stream_->wait_value(value_);
}

Event Stream::record_event() { return Event(shared_from_this(), pending_value()); }

Future<void> Stream::completion() {
  auto self = shared_from_this();
  const uint64_t value = pending_value();
  return Future<void>::make([self, value] { return Event(self, value).query(); },
                            [self, value] { self->wait_value(value); }, nullptr)
      .at_stream_point(self, value);
}

}  // namespace ember
