#pragma once
// ember's checkpoints: save() and load() in the safetensors format (checkpoint.h), PyTorch's .pt state
// dicts both ways (pytorch.h), and the atomic file writes beneath them (atomic_file.h).
#include "serialize/atomic_file.h"
#include "serialize/checkpoint.h"
#include "serialize/pytorch.h"
