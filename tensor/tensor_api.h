#pragma once
// The tensor library's public surface.
#include "tensor/autocast.h"
#include "tensor/function_variants.h"
#include "tensor/functions.h"
#include "tensor/indexing.h"
#include "tensor/tensor.h"
#include "tensor/types.h"
