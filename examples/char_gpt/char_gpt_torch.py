"""The PyTorch reference of ember-char-gpt: the same model, corpus, batches, optimizer and schedule, so that
from the same initial weights (ember-char-gpt --save-init init.pt, then --load-init init.pt here) the two
loss curves can be compared step by step.

    /usr/bin/python3 examples/char_gpt/char_gpt_torch.py --load-init init.pt --steps 600 --curve torch_curve.csv

The options and their defaults are ember-char-gpt's. Prints the same progress lines.
"""
import argparse
import math
import os
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


def load_fortunes(folder):
    names = sorted(n for n in os.listdir(folder)
                   if "." not in n and os.path.isfile(os.path.join(folder, n))
                   and not os.path.islink(os.path.join(folder, n)))
    if not names:
        raise SystemExit(f"no fortune files in {folder} (apt-get install fortunes)")
    text = b"".join(open(os.path.join(folder, n), "rb").read() for n in names)
    vocabulary = sorted(set(text))
    code = {c: i for i, c in enumerate(vocabulary)}
    tokens = torch.tensor([code[c] for c in text], dtype=torch.int64)
    split = len(text) * 9 // 10
    return bytes(vocabulary), tokens[:split], tokens[split:]


MASK64 = (1 << 64) - 1


def splitmix64(x):
    x = (x + 0x9E3779B97F4A7C15) & MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK64
    return x ^ (x >> 31)


def batch_offsets(seed, split, index, batch_size, limit):
    """ember's examples/char_gpt/batches.cpp: split 0 trains, 1 validates."""
    return [splitmix64(((seed << 40) ^ (split << 39) ^ (index * batch_size + j)) & MASK64) % limit
            for j in range(batch_size)]


def make_batch(tokens, offsets, context):
    positions = torch.tensor(offsets, dtype=torch.int64).unsqueeze(1) + torch.arange(context)
    return tokens[positions], tokens[positions + 1]


class Gpt(nn.Module):
    def __init__(self, vocabulary, context, d_model, heads, layers, dropout):
        super().__init__()
        self.tok_emb = nn.Embedding(vocabulary, d_model)
        self.pos_emb = nn.Embedding(context, d_model)
        layer = nn.TransformerEncoderLayer(d_model, heads, dim_feedforward=4 * d_model, dropout=dropout,
                                           activation="gelu", batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.ln_f = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocabulary, bias=False)

    def forward(self, tokens):
        length = tokens.size(1)
        causal = nn.Transformer.generate_square_subsequent_mask(length)
        x = self.blocks(self.tok_emb(tokens) + self.pos_emb(torch.arange(length)), mask=causal)
        return self.head(self.ln_f(x))


def loss_of(model, batch):
    inputs, targets = batch
    logits = model(inputs)
    return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--corpus", default="/usr/share/games/fortunes")
    p.add_argument("--steps", type=int, default=600)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--context", type=int, default=128)
    p.add_argument("--d-model", type=int, default=128)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--dropout", type=float, default=0.0)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--warmup", type=int, default=60)
    p.add_argument("--weight-decay", type=float, default=0.1)
    p.add_argument("--clip", type=float, default=1.0)
    p.add_argument("--eval-every", type=int, default=100)
    p.add_argument("--eval-batches", type=int, default=8)
    p.add_argument("--log-every", type=int, default=20)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--load-init", required=True, help="ember-char-gpt --save-init's file")
    p.add_argument("--curve", default="char_gpt_torch_curve.csv")
    p.add_argument("--threads", type=int, default=0)
    a = p.parse_args()
    if a.threads:
        torch.set_num_threads(a.threads)

    vocabulary, train_tokens, validation_tokens = load_fortunes(a.corpus)
    model = Gpt(len(vocabulary), a.context, a.d_model, a.heads, a.layers, a.dropout)
    model.load_state_dict(torch.load(a.load_init))
    optimizer = torch.optim.AdamW(model.parameters(), lr=a.lr, betas=(0.9, 0.95), weight_decay=a.weight_decay)
    schedule = torch.optim.lr_scheduler.SequentialLR(optimizer, [
        torch.optim.lr_scheduler.LinearLR(optimizer, 0.01, 1.0, a.warmup),
        torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, a.steps - a.warmup, a.lr / 10),
    ], [a.warmup])
    train_limit = len(train_tokens) - a.context - 1
    validation_limit = len(validation_tokens) - a.context - 1

    def validation_loss():
        model.eval()
        with torch.no_grad():
            total = sum(loss_of(model, make_batch(validation_tokens,
                                                  batch_offsets(a.seed, 1, i, a.batch_size, validation_limit),
                                                  a.context)).item()
                        for i in range(a.eval_batches))
        model.train()
        return total / a.eval_batches

    with open(a.curve, "w") as curve:
        curve.write("step,train_loss,validation_loss,lr\n")
        loss_sum, losses, train_seconds, since = 0.0, 0, 0.0, time.perf_counter()
        for step in range(1, a.steps + 1):
            batch = make_batch(train_tokens, batch_offsets(a.seed, 0, step - 1, a.batch_size, train_limit), a.context)
            loss = loss_of(model, batch)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), a.clip)
            optimizer.step()
            lr = schedule.get_last_lr()[0]
            schedule.step()
            loss_sum += loss.item()
            losses += 1
            evaluate = step % a.eval_every == 0 or step == a.steps
            if step % a.log_every and not evaluate:
                continue
            train_seconds += time.perf_counter() - since
            validation = f"{validation_loss():.6f}" if evaluate else ""
            print(f"step {step:5d}/{a.steps}  train loss {loss_sum / losses:.4f}"
                  f"{'  validation loss ' if evaluate else ''}{validation}  lr {lr:.2e}"
                  f"  {1000 * train_seconds / step:.0f} ms/step", flush=True)
            curve.write(f"{step},{loss_sum / losses},{validation},{lr}\n")
            curve.flush()
            loss_sum, losses, since = 0.0, 0, time.perf_counter()


if __name__ == "__main__":
    main()
