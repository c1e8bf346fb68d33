"""DP-SGD report: the certified ε of a training run against the number of steps, for Poisson and
fixed-size batches (privacy-loss distributions, :mod:`dpledger.accountant.dp_sgd`)."""

from __future__ import annotations

from pathlib import Path

from dpledger.accountant.dp_sgd import dp_sgd_epsilon, epsilon_curve
from dpledger.verify.reports import provenance
from dpledger.verify.reports.commands import Command
from dpledger.verify.reports.plotting import line_plot
from dpledger.verify.service.calibrate_mechanism import dp_sgd

DATASET, BATCH, NOISE, DELTA = 60000, 256, "1.1", "1e-5"
STEPS = [100, 300, 1000, 3000, 10000]
COMMAND = Command(
    (
        "calibrate",
        "dp-sgd",
        "--dataset-size",
        str(DATASET),
        "--batch-size",
        str(BATCH),
        "--steps",
        str(STEPS[-1]),
        "--noise-multiplier",
        NOISE,
        "--delta",
        DELTA,
    ),
    dp_sgd,
    {
        "dataset_size": DATASET,
        "batch_size": BATCH,
        "steps": STEPS[-1],
        "noise_multiplier": NOISE,
        "delta": DELTA,
    },
)
TITLE = "DP-SGD: certified ε against steps (privacy-loss distributions)"


def write(out: Path) -> tuple[list[Path], str]:
    curves = {
        sampling: epsilon_curve(DATASET, BATCH, NOISE, DELTA, STEPS, sampling)
        for sampling in ("poisson", "fixed")
    }
    plot = line_plot(
        out / "calibration_dp_sgd_epsilon_vs_steps.png",
        f"DP-SGD, n = {DATASET}, batch {BATCH}, noise multiplier {NOISE}, δ = {DELTA}",
        "steps",
        "certified ε",
        [float(t) for t in STEPS],
        {
            "Poisson batches (add/remove)": [e for _, e in curves["poisson"]],
            "fixed-size batches (substitution, sensitivity 2C)": [e for _, e in curves["fixed"]],
        },
        log_x=True,
    )
    last = dp_sgd_epsilon(DATASET, BATCH, NOISE, DELTA, steps=STEPS[-1])
    lines = [
        f"# {TITLE}",
        "",
        provenance("dpledger report"),
        "",
        f"The last Poisson point: `{COMMAND.line}`.",
        "",
        "Each ε is a certified upper bound: the steps' dominating pairs discretised pessimistically "
        "(connect-the-dots), composed with a certified convolution error bound, the truncated tails "
        "inside δ. Poisson batches: "
        + last.run.assumes
        + ". Fixed-size batches: each batch an independent uniform draw of b examples (substitute-one "
        "neighbours, clipped-sum sensitivity 2C). Shuffled batches are not certified.",
        "",
        "| steps | ε (Poisson) | ε (fixed-size) |",
        "|---|---|---|",
    ]
    lines += [
        f"| {t} | {p:.6g} | {f:.6g} |"
        for (t, p), (_, f) in zip(curves["poisson"], curves["fixed"], strict=True)
    ]
    lines += ["", f"![ε against steps]({plot.name})", "", "## Derivation at the last Poisson point", ""]
    lines += [last.derivation.to_markdown(), ""]
    report = out / "calibration_dp_sgd.md"
    report.write_text("\n".join(lines))
    return [report, plot], TITLE
