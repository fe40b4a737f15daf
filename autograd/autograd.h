#pragma once
// The autograd surface: grad modes, the engine, hooks, custom functions and gradcheck.
#include "autograd/autograd_meta.h"
#include "autograd/engine.h"
#include "autograd/function.h"
#include "autograd/grad_mode.h"
#include "autograd/gradcheck.h"
#include "autograd/node.h"
#include "autograd/saved_variable.h"
