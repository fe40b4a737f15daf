#pragma once
// The autograd surface: grad modes, the engine, hooks, custom functions, gradcheck and the derivatives
// of whole functions (autograd::functional) and the transforms that return them (ember::func).
#include "autograd/autograd_meta.h"
#include "autograd/engine.h"
#include "autograd/func.h"
#include "autograd/function.h"
#include "autograd/functional.h"
#include "autograd/grad_mode.h"
#include "autograd/gradcheck.h"
#include "autograd/node.h"
#include "autograd/saved_variable.h"
