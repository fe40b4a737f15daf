// The schedulers' learning-rate sequences (and OneCycleLR's and CyclicLR's momentum) equal Python's
// torch.optim.lr_scheduler (LibTorch 1.13 has only StepLR); their state_dict has Python's entries and resumes
// the same sequence.
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/optim/optim_oracle.h"
#include "tests/python_oracle.h"

namespace ember::test {
namespace {

namespace eo = ember::optim;

class SchedulerTest : public DeviceTest {};

// A two-group optimizer (lr 0.1 and 0.05) on the default device, as the Python side builds it.
struct TwoGroups {
  std::vector<Tensor> a, b;
  std::unique_ptr<eo::Optimizer> optimizer;
};

TwoGroups sgd_setup(double momentum = 0.9) {
  TwoGroups s;
  s.a = {ones({2}).requires_grad_(true)};
  s.b = {ones({3}).requires_grad_(true)};
  s.optimizer = std::make_unique<eo::SGD>(
      std::vector<eo::OptimizerParamGroup>{
          eo::OptimizerParamGroup(s.a),
          eo::OptimizerParamGroup(s.b, std::make_unique<eo::SGDOptions>(eo::SGDOptions(0.05).momentum(momentum)))},
      eo::SGDOptions(0.1).momentum(momentum));
  return s;
}

TwoGroups adam_setup() {
  TwoGroups s;
  s.a = {ones({2}).requires_grad_(true)};
  s.b = {ones({3}).requires_grad_(true)};
  s.optimizer = std::make_unique<eo::Adam>(
      std::vector<eo::OptimizerParamGroup>{
          eo::OptimizerParamGroup(s.a),
          eo::OptimizerParamGroup(s.b, std::make_unique<eo::AdamOptions>(eo::AdamOptions(0.05)))},
      eo::AdamOptions(0.1));
  return s;
}

// The first momentum-like option of each group: momentum, or betas[0].
std::vector<double> momenta(const eo::Optimizer& opt) {
  std::vector<double> out;
  for (const auto& group : opt.param_groups()) {
    for (const auto& [key, value] : group.options().items()) {
      if (key == "momentum") out.push_back(std::get<double>(value));
      if (key == "betas") out.push_back(std::get<std::vector<double>>(value)[0]);
    }
  }
  return out;
}

struct Case {
  std::string python_optimizer;  // "sgd" or "adam"
  std::string python_scheduler;  // built from `opt`
  std::function<TwoGroups()> setup;
  std::function<std::shared_ptr<void>(eo::Optimizer&)> scheduler;  // the ember scheduler
  std::function<void(void*)> step;
  std::function<std::vector<double>(void*)> last_lr;
  int steps = 25;
  bool momentum = false;  // also compare each group's momentum
};

template <class S>
Case epoch_case(std::string python, std::function<std::shared_ptr<S>(eo::Optimizer&)> make, int steps = 25,
                std::string optimizer = "sgd", bool momentum = false) {
  Case c;
  c.python_optimizer = optimizer;
  c.python_scheduler = std::move(python);
  c.setup = optimizer == "sgd" ? std::function<TwoGroups()>([] { return sgd_setup(); }) : std::function<TwoGroups()>(adam_setup);
  c.scheduler = [make](eo::Optimizer& opt) { return std::static_pointer_cast<void>(make(opt)); };
  c.step = [](void* s) { static_cast<S*>(s)->step(); };
  c.last_lr = [](void* s) { return static_cast<S*>(s)->get_last_lr(); };
  c.steps = steps;
  c.momentum = momentum;
  return c;
}

TEST_F(SchedulerTest, SequencesEqualPythons) {
  using Opt = eo::Optimizer;
  std::vector<Case> cases = {
      epoch_case<eo::StepLR>("StepLR(opt, 3, gamma=0.5)", [](Opt& o) { return std::make_shared<eo::StepLR>(o, 3, 0.5); }),
      epoch_case<eo::MultiStepLR>("MultiStepLR(opt, [2, 5, 5, 11], gamma=0.3)",
                                  [](Opt& o) { return std::make_shared<eo::MultiStepLR>(o, std::vector<int64_t>{2, 5, 5, 11}, 0.3); }),
      epoch_case<eo::ExponentialLR>("ExponentialLR(opt, 0.9)", [](Opt& o) { return std::make_shared<eo::ExponentialLR>(o, 0.9); }),
      epoch_case<eo::CosineAnnealingLR>("CosineAnnealingLR(opt, T_max=5, eta_min=0.001)",
                                        [](Opt& o) { return std::make_shared<eo::CosineAnnealingLR>(o, 5, 0.001); }),
      epoch_case<eo::LinearLR>("LinearLR(opt, start_factor=0.25, end_factor=0.9, total_iters=4)",
                               [](Opt& o) { return std::make_shared<eo::LinearLR>(o, 0.25, 0.9, 4); }),
      epoch_case<eo::LambdaLR>("LambdaLR(opt, [lambda e: 0.95 ** e, lambda e: 1.0 / (e + 1)])",
                               [](Opt& o) {
                                 return std::make_shared<eo::LambdaLR>(
                                     o, std::vector<eo::LambdaLR::Lambda>{[](int64_t e) { return std::pow(0.95, static_cast<double>(e)); },
                                                                          [](int64_t e) { return 1.0 / static_cast<double>(e + 1); }});
                               }),
      epoch_case<eo::SequentialLR>(
          "SequentialLR(opt, [LinearLR(opt, start_factor=0.1, total_iters=3), CosineAnnealingLR(opt, T_max=10)], milestones=[3])",
          [](Opt& o) {
            auto warmup = std::make_shared<eo::LinearLR>(o, 0.1, 1.0, 3);
            auto cosine = std::make_shared<eo::CosineAnnealingLR>(o, 10);
            return std::make_shared<eo::SequentialLR>(o, std::vector<std::shared_ptr<eo::LRScheduler>>{warmup, cosine},
                                                      std::vector<int64_t>{3});
          }),
      epoch_case<eo::OneCycleLR>("OneCycleLR(opt, max_lr=[1.0, 0.5], total_steps=20)",
                                 [](Opt& o) { return std::make_shared<eo::OneCycleLR>(o, eo::OneCycleLROptions({1.0, 0.5}).total_steps(20)); },
                                 19, "sgd", true),
      epoch_case<eo::OneCycleLR>(
          "OneCycleLR(opt, max_lr=0.3, epochs=3, steps_per_epoch=5, anneal_strategy='linear', three_phase=True, pct_start=0.25)",
          [](Opt& o) {
            return std::make_shared<eo::OneCycleLR>(
                o, eo::OneCycleLROptions(0.3).epochs(3).steps_per_epoch(5).anneal_strategy("linear").three_phase(true).pct_start(0.25));
          },
          14, "adam", true),
      epoch_case<eo::MultiplicativeLR>("MultiplicativeLR(opt, [lambda e: 0.9, lambda e: 1.0 - 0.01 * e])",
                                       [](Opt& o) {
                                         return std::make_shared<eo::MultiplicativeLR>(
                                             o, std::vector<eo::LambdaLR::Lambda>{[](int64_t) { return 0.9; },
                                                                                  [](int64_t e) { return 1.0 - 0.01 * static_cast<double>(e); }});
                                       }),
      epoch_case<eo::ConstantLR>("ConstantLR(opt, factor=0.3, total_iters=4)",
                                 [](Opt& o) { return std::make_shared<eo::ConstantLR>(o, 0.3, 4); }),
      epoch_case<eo::PolynomialLR>("PolynomialLR(opt, total_iters=6, power=2.5)",
                                   [](Opt& o) { return std::make_shared<eo::PolynomialLR>(o, 6, 2.5); }),
      epoch_case<eo::ChainedScheduler>(
          "ChainedScheduler([ConstantLR(opt, factor=0.1, total_iters=3), ExponentialLR(opt, gamma=0.9)])",
          [](Opt& o) {
            return std::make_shared<eo::ChainedScheduler>(std::vector<std::shared_ptr<eo::LRScheduler>>{
                std::make_shared<eo::ConstantLR>(o, 0.1, 3), std::make_shared<eo::ExponentialLR>(o, 0.9)});
          }),
      epoch_case<eo::CosineAnnealingWarmRestarts>(
          "CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2, eta_min=0.001)",
          [](Opt& o) { return std::make_shared<eo::CosineAnnealingWarmRestarts>(o, 3, 2, 0.001); }),
      epoch_case<eo::CosineAnnealingWarmRestarts>("CosineAnnealingWarmRestarts(opt, T_0=4)", [](Opt& o) {
        return std::make_shared<eo::CosineAnnealingWarmRestarts>(o, 4);
      }),
      epoch_case<eo::CyclicLR>("CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=4)",
                               [](Opt& o) { return std::make_shared<eo::CyclicLR>(o, eo::CyclicLROptions(0.01, 0.1).step_size_up(4)); },
                               25, "sgd", true),
      epoch_case<eo::CyclicLR>(
          "CyclicLR(opt, base_lr=[0.01, 0.02], max_lr=[0.1, 0.3], step_size_up=3, step_size_down=5, mode='triangular2', "
          "base_momentum=[0.7, 0.75], max_momentum=0.95)",
          [](Opt& o) {
            return std::make_shared<eo::CyclicLR>(o, eo::CyclicLROptions({0.01, 0.02}, {0.1, 0.3})
                                                         .step_size_up(3)
                                                         .step_size_down(5)
                                                         .mode("triangular2")
                                                         .base_momentum({0.7, 0.75})
                                                         .max_momentum(0.95));
          },
          25, "sgd", true),
      epoch_case<eo::CyclicLR>(
          "CyclicLR(opt, 0.01, 0.1, step_size_up=2, mode='exp_range', gamma=0.9, cycle_momentum=False)",
          [](Opt& o) {
            return std::make_shared<eo::CyclicLR>(
                o, eo::CyclicLROptions(0.01, 0.1).step_size_up(2).mode("exp_range").gamma(0.9).cycle_momentum(false));
          },
          25, "adam"),
      epoch_case<eo::CyclicLR>(
          "CyclicLR(opt, 0.01, 0.1, step_size_up=3, scale_fn=lambda x: 0.8 ** x, scale_mode='iterations')",
          [](Opt& o) {
            return std::make_shared<eo::CyclicLR>(o, eo::CyclicLROptions(0.01, 0.1)
                                                         .step_size_up(3)
                                                         .scale_fn([](double x) { return std::pow(0.8, x); })
                                                         .scale_mode("iterations"));
          },
          25, "sgd", true),
  };
  // SequentialLR steps its schedulers with an epoch argument, which PyTorch 1.13 warns about on stderr.
  std::string script = R"(
import warnings
warnings.simplefilter("ignore")
from torch.optim.lr_scheduler import *
import json
def setup(kind):
    a, b = [torch.ones(2, requires_grad=True)], [torch.ones(3, requires_grad=True)]
    if kind == 'sgd':
        return torch.optim.SGD([{'params': a}, {'params': b, 'lr': 0.05}], lr=0.1, momentum=0.9)
    return torch.optim.Adam([{'params': a}, {'params': b, 'lr': 0.05}], lr=0.1)
def momenta(opt):
    return [g['momentum'] if 'momentum' in g else g['betas'][0] for g in opt.param_groups]
def run(kind, make, steps, momentum):
    opt = setup(kind)
    s = make(opt)
    lines = []
    for k in range(steps + 1):
        if k > 0:
            opt.step()
            s.step()
        line = ' '.join(repr(float(x)) for x in s.get_last_lr())
        if momentum:
            line += ' | ' + ' '.join(repr(float(x)) for x in momenta(opt))
        lines.append(line)
    print('\n'.join(lines))
    print('@@END@@')
)";
  for (const Case& c : cases) {
    script += "run('" + c.python_optimizer + "', lambda opt: " + c.python_scheduler + ", " + std::to_string(c.steps) + ", " +
              (c.momentum ? "True" : "False") + ")\n";
  }
  std::vector<std::string> answers;
  ASSERT_PYTHON_ANSWERS(answers, script, cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(cases[i].python_scheduler);
    TwoGroups s = cases[i].setup();
    std::shared_ptr<void> scheduler = cases[i].scheduler(*s.optimizer);
    std::istringstream expected(answers[i]);
    for (int k = 0; k <= cases[i].steps; ++k) {
      if (k > 0) {
        s.optimizer->step();
        cases[i].step(scheduler.get());
      }
      std::string line;
      std::getline(expected, line);
      std::istringstream values(line);
      std::vector<double> want;
      std::vector<double> got = cases[i].last_lr(scheduler.get());
      if (cases[i].momentum) {
        for (double m : momenta(*s.optimizer)) got.push_back(m);
      }
      for (std::string word; values >> word;) {
        if (word == "|") continue;
        try {
          want.push_back(std::stod(word));
        } catch (const std::exception&) {
          FAIL() << "Python printed '" << line << "'";
        }
      }
      ASSERT_EQ(got.size(), want.size()) << "epoch " << k;
      for (size_t j = 0; j < got.size(); ++j) {
        EXPECT_NEAR(got[j], want[j], 1e-15 + 1e-12 * std::abs(want[j])) << "epoch " << k << " value " << j;
      }
      // The optimizer's groups hold what get_last_lr says.
      for (size_t g = 0; g < s.optimizer->param_groups().size(); ++g) {
        EXPECT_EQ(s.optimizer->param_groups()[g].options().get_lr(), cases[i].last_lr(scheduler.get())[g]);
      }
    }
  }
}

TEST_F(SchedulerTest, ReduceLROnPlateauEqualsPythons) {
  const std::vector<double> metrics = {1.0, 0.9, 0.95, 0.95, 0.95, 0.95, 0.8, 0.85, 0.85, 0.85, 0.85, 0.85, 0.85,
                                       0.7, 0.9,  0.9,  0.9,  0.9,  0.9, 0.9, 0.9,  0.9,  0.9,  0.9};
  std::string list = "[";
  for (double m : metrics) list += std::to_string(m) + ",";
  list += "]";
  const std::string script = R"(
from torch.optim.lr_scheduler import ReduceLROnPlateau
for kwargs in [dict(patience=2), dict(mode='max', patience=1, factor=0.5, threshold=0.01, threshold_mode='abs', cooldown=2, min_lr=[0.02, 0.01])]:
    a, b = [torch.ones(2, requires_grad=True)], [torch.ones(3, requires_grad=True)]
    opt = torch.optim.SGD([{'params': a}, {'params': b, 'lr': 0.05}], lr=0.1)
    s = ReduceLROnPlateau(opt, **kwargs)
    out = []
    for m in )" + list + R"(:
        s.step(m)
        out.append(' '.join(repr(g['lr']) for g in opt.param_groups))
    print('\n'.join(out))
    print('@@END@@')
)";
  std::vector<std::string> answers;
  ASSERT_PYTHON_ANSWERS(answers, script, 2u);
  const std::vector<eo::ReduceLROnPlateauOptions> options = {
      eo::ReduceLROnPlateauOptions().patience(2),
      eo::ReduceLROnPlateauOptions().mode("max").patience(1).factor(0.5).threshold(0.01).threshold_mode("abs").cooldown(2).min_lr({0.02, 0.01})};
  for (size_t c = 0; c < options.size(); ++c) {
    TwoGroups s = sgd_setup(0);
    eo::ReduceLROnPlateau scheduler(*s.optimizer, options[c]);
    std::istringstream expected(answers[c]);
    for (size_t k = 0; k < metrics.size(); ++k) {
      scheduler.step(metrics[k]);
      std::string line;
      std::getline(expected, line);
      std::istringstream values(line);
      std::vector<double> want;
      for (double v; values >> v;) want.push_back(v);
      EXPECT_EQ(scheduler.get_last_lr(), want) << "case " << c << " epoch " << k;
    }
  }
}

// state_dict has Python's entries, and a scheduler loaded from it continues the same sequence.
TEST_F(SchedulerTest, StateDictIsPythonsAndResumes) {
  const std::string script = R"(
from torch.optim.lr_scheduler import *
import json
for make in [lambda o: StepLR(o, 3, gamma=0.5), lambda o: MultiStepLR(o, [2, 5, 5], gamma=0.3),
             lambda o: CosineAnnealingLR(o, T_max=5, eta_min=0.001), lambda o: LinearLR(o, 0.25, 0.9, 4),
             lambda o: ConstantLR(o, 0.5, 9), lambda o: PolynomialLR(o, 9, 2.0),
             lambda o: CosineAnnealingWarmRestarts(o, 3, 2, 0.001), lambda o: MultiplicativeLR(o, lambda e: 0.9),
             lambda o: ChainedScheduler([ConstantLR(o, 0.5, 9), ExponentialLR(o, 0.9)])]:
    a, b = [torch.ones(2, requires_grad=True)], [torch.ones(3, requires_grad=True)]
    opt = torch.optim.SGD([{'params': a}, {'params': b, 'lr': 0.05}], lr=0.1, momentum=0.9)
    s = make(opt)
    for k in range(7):
        opt.step()
        s.step()
    print(json.dumps(s.state_dict()))
    print('@@END@@')
)";
  using Make = std::function<std::unique_ptr<eo::LRScheduler>(eo::Optimizer&)>;
  const std::vector<Make> makers = {
      [](eo::Optimizer& o) { return std::make_unique<eo::StepLR>(o, 3, 0.5); },
      [](eo::Optimizer& o) { return std::make_unique<eo::MultiStepLR>(o, std::vector<int64_t>{2, 5, 5}, 0.3); },
      [](eo::Optimizer& o) { return std::make_unique<eo::CosineAnnealingLR>(o, 5, 0.001); },
      [](eo::Optimizer& o) { return std::make_unique<eo::LinearLR>(o, 0.25, 0.9, 4); },
      [](eo::Optimizer& o) { return std::make_unique<eo::ConstantLR>(o, 0.5, 9); },
      [](eo::Optimizer& o) { return std::make_unique<eo::PolynomialLR>(o, 9, 2.0); },
      [](eo::Optimizer& o) { return std::make_unique<eo::CosineAnnealingWarmRestarts>(o, 3, 2, 0.001); },
      [](eo::Optimizer& o) { return std::make_unique<eo::MultiplicativeLR>(o, [](int64_t) { return 0.9; }); },
      [](eo::Optimizer& o) {
        return std::make_unique<eo::ChainedScheduler>(std::vector<std::shared_ptr<eo::LRScheduler>>{
            std::make_shared<eo::ConstantLR>(o, 0.5, 9), std::make_shared<eo::ExponentialLR>(o, 0.9)});
      },
  };
  std::vector<std::string> answers;
  ASSERT_PYTHON_ANSWERS(answers, script, makers.size());
  for (size_t c = 0; c < makers.size(); ++c) {
    SCOPED_TRACE("case " + std::to_string(c));
    TwoGroups s = sgd_setup();
    std::unique_ptr<eo::LRScheduler> scheduler = makers[c](*s.optimizer);
    for (int k = 0; k < 7; ++k) scheduler->step();
    const std::string state = scheduler->state_dict();
    EXPECT_EQ(nlohmann::json::parse(state), nlohmann::json::parse(answers[c])) << state << "\n" << answers[c];

    // Resume as Python's checkpoints do: a new optimizer and scheduler, then the optimizer's state (which
    // brings back each group's lr) and the scheduler's.
    TwoGroups resumed = sgd_setup();
    std::unique_ptr<eo::LRScheduler> again = makers[c](*resumed.optimizer);
    resumed.optimizer->load_state_dict(s.optimizer->state_dict());
    again->load_state_dict(state);
    for (int k = 0; k < 6; ++k) {
      scheduler->step();
      again->step();
      EXPECT_EQ(again->get_last_lr(), scheduler->get_last_lr()) << "step " << k;
    }
  }
}

// CosineAnnealingWarmRestarts stepped per batch with fractional epochs, and jumps with step(epoch) (the
// closed forms of ConstantLR and PolynomialLR), as Python's.
TEST_F(SchedulerTest, FractionalEpochsAndJumpsEqualPythons) {
  const std::vector<int64_t> jumps = {7, 2, 2, 12, 0, 5};
  std::string jump_list = "[";
  for (int64_t j : jumps) jump_list += std::to_string(j) + ",";
  jump_list += "]";
  const std::string script = R"(
import warnings
warnings.simplefilter("ignore")
from torch.optim.lr_scheduler import *
def opt():
    a, b = [torch.ones(2, requires_grad=True)], [torch.ones(3, requires_grad=True)]
    return torch.optim.SGD([{'params': a}, {'params': b, 'lr': 0.05}], lr=0.1, momentum=0.9)
for T_mult in [1, 2]:
    s = CosineAnnealingWarmRestarts(opt(), T_0=2, T_mult=T_mult, eta_min=0.001)
    out = []
    for epoch in range(7):
        for i in range(4):
            s.step(epoch + i / 4)
            out.append(' '.join(repr(x) for x in s.get_last_lr()))
    print('\n'.join(out))
    print('@@END@@')
for make in [lambda o: ConstantLR(o, factor=0.3, total_iters=4), lambda o: PolynomialLR(o, total_iters=6, power=2.5),
             lambda o: CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2)]:
    s = make(opt())
    out = []
    for e in )" + jump_list + R"(:
        s.step(e)
        out.append(' '.join(repr(x) for x in s.get_last_lr()))
    print('\n'.join(out))
    print('@@END@@')
)";
  std::vector<std::string> answers;
  ASSERT_PYTHON_ANSWERS(answers, script, 5u);
  auto expect_lines = [](std::istringstream& expected, const std::vector<double>& got, const std::string& where) {
    std::string line;
    std::getline(expected, line);
    std::istringstream values(line);
    std::vector<double> want;
    for (double v; values >> v;) want.push_back(v);
    ASSERT_EQ(got.size(), want.size()) << where << ": Python printed '" << line << "'";
    for (size_t j = 0; j < got.size(); ++j) EXPECT_NEAR(got[j], want[j], 1e-15 + 1e-12 * std::abs(want[j])) << where;
  };
  for (int64_t T_mult : {1, 2}) {
    TwoGroups s = sgd_setup();
    eo::CosineAnnealingWarmRestarts scheduler(*s.optimizer, 2, T_mult, 0.001);
    std::istringstream expected(answers[T_mult - 1]);
    for (int epoch = 0; epoch < 7; ++epoch) {
      for (int i = 0; i < 4; ++i) {
        scheduler.step(epoch + i / 4.0);
        expect_lines(expected, scheduler.get_last_lr(),
                     "T_mult " + std::to_string(T_mult) + " epoch " + std::to_string(epoch) + " + " + std::to_string(i) + "/4");
      }
    }
  }
  using Make = std::function<std::unique_ptr<eo::LRScheduler>(eo::Optimizer&)>;
  const std::vector<Make> makers = {
      [](eo::Optimizer& o) { return std::make_unique<eo::ConstantLR>(o, 0.3, 4); },
      [](eo::Optimizer& o) { return std::make_unique<eo::PolynomialLR>(o, 6, 2.5); },
      [](eo::Optimizer& o) { return std::make_unique<eo::CosineAnnealingWarmRestarts>(o, 3, 2); },
  };
  for (size_t c = 0; c < makers.size(); ++c) {
    TwoGroups s = sgd_setup();
    std::unique_ptr<eo::LRScheduler> scheduler = makers[c](*s.optimizer);
    std::istringstream expected(answers[2 + c]);
    for (int64_t e : jumps) {
      scheduler->step(e);
      expect_lines(expected, scheduler->get_last_lr(), "case " + std::to_string(c) + " step(" + std::to_string(e) + ")");
    }
  }
}

// CyclicLR cycles Adam's beta1 as it cycles SGD's momentum (the sequence test checks SGD's against Python;
// Python 1.13 refuses an optimizer with betas, PyTorch 2 cycles beta1 so), and its state resumes the
// same learning rates and momenta.
TEST_F(SchedulerTest, CyclicLRCyclesBeta1AndResumes) {
  const eo::CyclicLROptions options = eo::CyclicLROptions({0.01, 0.02}, {0.1, 0.3}).step_size_up(3).step_size_down(2).mode("triangular2");
  TwoGroups sgd = sgd_setup();
  TwoGroups adam = adam_setup();
  eo::CyclicLR with_momentum(*sgd.optimizer, options);
  eo::CyclicLR with_betas(*adam.optimizer, options);
  for (int k = 0; k < 12; ++k) {
    EXPECT_EQ(momenta(*adam.optimizer), momenta(*sgd.optimizer)) << "step " << k;
    EXPECT_EQ(with_betas.get_last_lr(), with_momentum.get_last_lr()) << "step " << k;
    with_momentum.step();
    with_betas.step();
  }
  for (TwoGroups* s : {&sgd, &adam}) {
    eo::CyclicLR scheduler(*s->optimizer, eo::CyclicLROptions(0.01, 0.1).step_size_up(4).mode("exp_range").gamma(0.95));
    for (int k = 0; k < 5; ++k) scheduler.step();
    const std::string state = scheduler.state_dict();
    TwoGroups resumed = s == &sgd ? sgd_setup() : adam_setup();
    eo::CyclicLR again(*resumed.optimizer, eo::CyclicLROptions(0.5, 0.9));
    resumed.optimizer->load_state_dict(s->optimizer->state_dict());
    again.load_state_dict(state);
    EXPECT_EQ(nlohmann::json::parse(again.state_dict()), nlohmann::json::parse(state));
    for (int k = 0; k < 9; ++k) {
      scheduler.step();
      again.step();
      EXPECT_EQ(again.get_last_lr(), scheduler.get_last_lr()) << "step " << k;
      EXPECT_EQ(momenta(*resumed.optimizer), momenta(*s->optimizer)) << "step " << k;
    }
  }
}

TEST_F(SchedulerTest, BadArgumentsGetPythonsMessages) {
  TwoGroups s = sgd_setup();
  eo::Optimizer& o = *s.optimizer;
  const double lr0 = o.param_groups()[0].options().get_lr();
  expect_error<Error>([&] { eo::LinearLR(o, 1.5); },
                      "Starting multiplicative factor expected to be greater than 0 and less or equal to 1.");
  expect_error<Error>([&] { eo::LinearLR(o, 0.0); },
                      "Starting multiplicative factor expected to be greater than 0 and less or equal to 1.");
  expect_error<Error>([&] { eo::LinearLR(o, 0.5, -1); }, "Ending multiplicative factor expected to be between 0 and 1.");
  expect_error<Error>([&] { eo::LambdaLR(o, std::vector<eo::LambdaLR::Lambda>{[](int64_t) { return 1.0; }}); },
                      "Expected 2 lr_lambdas, but got 1");
  expect_error<Error>([&] { eo::OneCycleLR(o, eo::OneCycleLROptions(1.0)); },
                      "You must define either total_steps OR (epochs AND steps_per_epoch)");
  expect_error<Error>([&] { eo::OneCycleLR(o, eo::OneCycleLROptions(1.0).total_steps(0)); },
                      "Expected positive integer total_steps, but got 0");
  expect_error<Error>([&] { eo::OneCycleLR(o, eo::OneCycleLROptions(1.0).total_steps(5).pct_start(1.5)); },
                      "Expected float between 0 and 1 pct_start, but got 1.5");
  expect_error<Error>([&] { eo::OneCycleLR(o, eo::OneCycleLROptions(1.0).total_steps(5).anneal_strategy("exp")); },
                      "anneal_strategy must by one of 'cos' or 'linear', instead got exp");
  expect_error<Error>([&] { eo::OneCycleLR(o, eo::OneCycleLROptions({1.0, 2.0, 3.0}).total_steps(5)); },
                      "expected 2 values for max_lr, got 3");
  // A list of one is a list, as in Python: it must have one value per group too; a number spreads.
  expect_error<Error>([&] { eo::OneCycleLR(o, eo::OneCycleLROptions({1.0}).total_steps(5)); },
                      "expected 2 values for max_lr, got 1");
  expect_error<Error>([&] { eo::OneCycleLR(o, eo::OneCycleLROptions(1.0).total_steps(5).max_momentum({0.9})); },
                      "expected 2 values for max_momentum, got 1");
  expect_error<Error>([&] { eo::OneCycleLR(o, eo::OneCycleLROptions(1.0).total_steps(5).base_momentum({0.8})); },
                      "expected 2 values for base_momentum, got 1");
  expect_error<Error>([&] { eo::ReduceLROnPlateau(o, eo::ReduceLROnPlateauOptions().min_lr({0.0})); },
                      "expected 2 min_lrs, got 1");
  expect_error<Error>([&] { eo::ReduceLROnPlateau(o, eo::ReduceLROnPlateauOptions().factor(1.0)); },
                      "Factor should be < 1.0.");
  expect_error<Error>([&] { eo::ReduceLROnPlateau(o, eo::ReduceLROnPlateauOptions().mode("lowest")); },
                      "mode lowest is unknown!");
  expect_error<Error>([&] { eo::ReduceLROnPlateau(o, eo::ReduceLROnPlateauOptions().threshold_mode("rel2")); },
                      "threshold mode rel2 is unknown!");
  expect_error<Error>([&] { eo::StepLR(o, 3, 0.1, /*last_epoch=*/4); },
                      "param 'initial_lr' is not specified in param_groups[0] when resuming an optimizer");
  TwoGroups adagrad;
  adagrad.a = {ones({2}).requires_grad_(true)};
  adagrad.optimizer = std::make_unique<eo::Adagrad>(adagrad.a);
  expect_error<Error>([&] { eo::OneCycleLR(*adagrad.optimizer, eo::OneCycleLROptions(1.0).total_steps(5)); },
                      "optimizer must support momentum with `cycle_momentum` option enabled");
  expect_error<Error>([&] { eo::CyclicLR(*adagrad.optimizer, eo::CyclicLROptions(0.1, 1.0)); },
                      "optimizer must support momentum with `cycle_momentum` option enabled");
  expect_error<Error>([&] { eo::ConstantLR(o, 1.5); }, "Constant multiplicative factor expected to be between 0 and 1.");
  expect_error<Error>([&] { eo::ConstantLR(o, -0.5); }, "Constant multiplicative factor expected to be between 0 and 1.");
  expect_error<Error>([&] { eo::MultiplicativeLR(o, std::vector<eo::LambdaLR::Lambda>{[](int64_t) { return 1.0; }}); },
                      "Expected 2 lr_lambdas, but got 1");
  expect_error<Error>([&] { eo::CosineAnnealingWarmRestarts(o, 0); }, "Expected positive integer T_0, but got 0");
  expect_error<Error>([&] { eo::CosineAnnealingWarmRestarts(o, 3, 0); }, "Expected integer T_mult >= 1, but got 0");
  expect_error<Error>([&] { eo::CyclicLR(o, eo::CyclicLROptions({0.1, 0.2, 0.3}, 1.0)); }, "expected 2 values for base_lr, got 3");
  expect_error<Error>([&] { eo::CyclicLR(o, eo::CyclicLROptions(0.1, {1.0})); }, "expected 2 values for max_lr, got 1");
  expect_error<Error>([&] { eo::CyclicLR(o, eo::CyclicLROptions(0.1, 1.0).mode("cosine")); },
                      "mode is invalid and scale_fn is None");
  expect_error<Error>([&] { eo::CyclicLR(o, eo::CyclicLROptions(0.1, 1.0).max_momentum({0.9})); },
                      "expected 2 values for max_momentum, got 1");
  expect_error<Error>([&] { eo::CyclicLR(o, eo::CyclicLROptions(0.1, 1.0).step_size_up(0)); },
                      "CyclicLR: step_size_up must be above 0 and step_size_down at least 0, got 0.0 and 0.0");
  expect_error<Error>([&] { eo::ChainedScheduler({}); }, "ChainedScheduler expects at least one scheduler");
  // Where Python would call None or read a field of it (TypeError, AttributeError), ember names the empty
  // function or the null scheduler (below) instead of throwing bad_function_call or crashing.
  expect_error<Error>([&] { eo::LambdaLR(o, std::vector<eo::LambdaLR::Lambda>{[](int64_t) { return 1.0; }, nullptr}); },
                      "the lr_lambda of param group 1 is an empty function");
  expect_error<Error>([&] { eo::MultiplicativeLR(o, eo::LambdaLR::Lambda()); },
                      "the lr_lambda of param group 0 is an empty function");
  // The failed constructions changed nothing.
  EXPECT_EQ(o.param_groups()[0].options().get_lr(), lr0);
  EXPECT_FALSE(o.param_groups()[0].extra("initial_lr").has_value());
  {
    TwoGroups chained = sgd_setup();
    auto other = std::make_shared<eo::StepLR>(*adagrad.optimizer, 3);
    expect_error<Error>(
        [&] {
          eo::ChainedScheduler(std::vector<std::shared_ptr<eo::LRScheduler>>{
              std::make_shared<eo::ExponentialLR>(*chained.optimizer, 0.9), other});
        },
        "ChainedScheduler expects all schedulers to belong to the same optimizer, but got schedulers at index 0 and 1 "
        "to be different");
    expect_error<Error>(
        [&] {
          eo::SequentialLR(*chained.optimizer, {std::make_shared<eo::ExponentialLR>(*chained.optimizer, 0.9), nullptr},
                           {2});
        },
        "SequentialLR: scheduler 1 is null");
    eo::CosineAnnealingWarmRestarts warm(*chained.optimizer, 3);
    expect_error<Error>([&] { warm.step(-0.5); }, "Expected non-negative epoch, but got -0.5");
  }
  eo::OneCycleLR one_cycle(o, eo::OneCycleLROptions(1.0).total_steps(2));
  one_cycle.step();
  one_cycle.step();
  expect_error<Error>([&] { one_cycle.step(); }, "Tried to step 4 times. The specified number of total steps is 2");
  // A state from a hostile file, nested deeper than any scheduler's, is refused before it is parsed.
  expect_error<Error>([&] { one_cycle.load_state_dict("{\"x\": " + std::string(100000, '[') + std::string(100000, ']') + "}"); },
                      "load_state_dict: the scheduler state nests 100001 levels deep, more than the 64 any scheduler's "
                      "state needs");
}

// Where Python divides by zero, ember throws at the same step instead of setting a NaN learning rate: a
// OneCycleLR phase without steps (pct_start * total_steps of 1, or the extra step PyTorch allows at
// total_steps landing in an empty last phase), and LinearLR's start_factor of 0, which Python 1.13 takes
// and later versions refuse in the constructor, as ember does.
TEST_F(SchedulerTest, DivisionsByZeroFailWherePythonsDo) {
  struct OneCycleCase {
    int64_t total_steps;
    double pct_start;
    bool three_phase;
  };
  const std::vector<OneCycleCase> cases = {{10, 0.1, false}, {2, 1.0, false}, {4, 0.25, true},
                                           {3, 2.0 / 3, true}, {10, 0.3, false}, {20, 0.05, false}};
  // The step (last_epoch) at which Python raises ZeroDivisionError, or "none" through total_steps.
  std::string script = R"(
import warnings
warnings.simplefilter("ignore")
from torch.optim.lr_scheduler import OneCycleLR, LinearLR, ConstantLR
def where(make, steps):
    opt = torch.optim.SGD([torch.ones(2, requires_grad=True)], lr=0.1, momentum=0.9)
    epoch = 0
    try:
        s = make(opt)
        for epoch in range(1, steps + 1):
            s.step()
        print('none')
    except ZeroDivisionError:
        print(epoch)
    print('@@END@@')
where(lambda opt: LinearLR(opt, start_factor=0.0, total_iters=4), 4)
where(lambda opt: ConstantLR(opt, factor=0.0, total_iters=3), 5)
)";
  for (const OneCycleCase& c : cases) {
    script += "where(lambda opt: OneCycleLR(opt, max_lr=1.0, total_steps=" + std::to_string(c.total_steps) +
              ", pct_start=" + nlohmann::json(c.pct_start).dump() + ", three_phase=" + (c.three_phase ? "True" : "False") +
              "), " + std::to_string(c.total_steps) + ")\n";
  }
  std::vector<std::string> answers;
  ASSERT_PYTHON_ANSWERS(answers, script, cases.size() + 2);
  EXPECT_EQ(answers[0], "1") << "Python 1.13 divides by zero in LinearLR's first step; ember refuses 0 up front";
  {
    // ConstantLR takes a factor of 0 and divides by it where the factor ends, at total_iters.
    eo::SGD optimizer(std::vector<Tensor>{ones({2}).requires_grad_(true)}, eo::SGDOptions(0.1).momentum(0.9));
    eo::ConstantLR scheduler(optimizer, 0.0, 3);
    std::string failed_at = "none";
    for (int64_t epoch = 1; epoch <= 5 && failed_at == "none"; ++epoch) {
      try {
        scheduler.step();
      } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("divides by zero"), std::string::npos) << e.what();
        failed_at = std::to_string(epoch);
      }
    }
    EXPECT_EQ(failed_at, answers[1]);
  }

  for (size_t i = 0; i < cases.size(); ++i) {
    const OneCycleCase& c = cases[i];
    SCOPED_TRACE("total_steps " + std::to_string(c.total_steps) + ", pct_start " + std::to_string(c.pct_start) +
                 (c.three_phase ? ", three phases" : ""));
    eo::SGD optimizer(std::vector<Tensor>{ones({2}).requires_grad_(true)}, eo::SGDOptions(0.1).momentum(0.9));
    std::string failed_at = "none";
    int64_t epoch = 0;
    try {
      eo::OneCycleLR scheduler(
          optimizer, eo::OneCycleLROptions(1.0).total_steps(c.total_steps).pct_start(c.pct_start).three_phase(c.three_phase));
      for (epoch = 1; epoch <= c.total_steps; ++epoch) {
        scheduler.step();
        for (double lr : scheduler.get_last_lr()) ASSERT_TRUE(std::isfinite(lr)) << "epoch " << epoch;
      }
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("would divide by zero"), std::string::npos) << e.what();
      failed_at = std::to_string(epoch);
    }
    EXPECT_EQ(failed_at, answers[i + 2]);
    if (failed_at == "0") {
      // Refused in the constructor, before it touched the groups.
      EXPECT_FALSE(optimizer.param_groups()[0].extra("initial_lr").has_value());
      EXPECT_EQ(optimizer.param_groups()[0].options().get_lr(), 0.1);
    }
  }
}

}  // namespace
}  // namespace ember::test
