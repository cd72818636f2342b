"""One sentence per training measure: what it measures and which way is good, grouped for the report.

The training section draws one chart per measure family (``train_loss`` and ``heldout_loss`` share
the family ``loss``). A reader who has not met layer rotation or gradient coherence gets the sentence
under the chart's group; a family gengap does not know is listed under "Other measures".

>>> group_of("accuracy"), note("sharpness")[:30]
('Fit and generalization', 'How much the training loss can')
"""

from __future__ import annotations

__all__ = ["GROUPS", "NOTES", "group_of", "note"]

#: Groups in the order the report shows them, each with a one-line lede.
GROUPS: dict[str, str] = {
    "Fit and generalization": "How well the network fits its training examples and how well that carries over to held-out ones.",
    "Weights: how far and how large": "How far training moves the weights from where they started, and how large they grow.",
    "Loss landscape and gradients": "The shape of the loss around the current weights and how much examples agree on the update.",
    "Examples": "How hard the training examples still are for the network (data-diet scores).",
    "Other measures": "Measures without a description here; their names say what they record.",
}

#: family -> (group, sentence). Sentences say what is measured, then which direction is good.
NOTES: dict[str, tuple[str, str]] = {
    "accuracy": ("Fit and generalization", "Share of train and held-out examples answered correctly; a held-out line that "
                 "stays low while train reaches 100% is memorization, a late jump in held-out is grokking. Higher is better."),
    "loss": ("Fit and generalization", "Cross-entropy on the train and held-out sets. Lower is better; a held-out loss "
             "rising while train loss falls is overfitting."),
    "batch_loss": ("Fit and generalization", "Training loss of each optimizer step's batch, noisier than the train loss on the "
                   "Loss chart. Lower is better; spikes are unstable steps."),
    "gap_accuracy": ("Fit and generalization", "Train accuracy minus held-out accuracy: the generalization gap. Closer to 0 "
                     "is better."),
    "gap_loss": ("Fit and generalization", "Held-out loss minus train loss: the generalization gap in loss. Closer to 0 is "
                 "better."),
    "distance_from_init": ("Weights: how far and how large", "Euclidean distance of all weights from their initial values "
                           "(Hoffer et al. 2017). Neither direction is good in itself; a plateau means training has settled."),
    "distance_log_slope": ("Weights: how far and how large", "Slope of distance from initialization against log(step): "
                           "near-constant slope is the 'random walk on a random potential' regime of Hoffer et al.; the "
                           "figure is for comparing runs, not good or bad alone."),
    "distance_log_r2": ("Weights: how far and how large", "How well a straight line in log(step) fits the distance "
                        "(R², 0 to 1); near 1 means the distance grows logarithmically, as Hoffer et al. describe."),
    "layer_rotation": ("Weights: how far and how large", "1 − cosine between each layer's weights now and at "
                       "initialization (Carbonnelle & De Vleeschouwer 2019): 0 is unchanged, 1 orthogonal. Larger, "
                       "even rotation across layers went with better generalization in their study."),
    "param_norm": ("Weights: how far and how large", "Frobenius norm of the weights, per tensor and in total. With weight "
                   "decay a falling norm often comes before grokking; smaller is usually better for generalization."),
    "spectral_norm": ("Weights: how far and how large", "Largest singular value of each weight matrix: how much one layer "
                      "can stretch an input. Smaller is better for norm-based generalization bounds."),
    "log_spectral_product": ("Weights: how far and how large", "Sum of the log spectral norms over layers (log of their "
                             "product), the core of spectral generalization bounds. Lower is better."),
    "margin": ("Loss landscape and gradients", "10th percentile of the output margin (correct logit minus the largest other "
               "one) on a probe sample (Jiang et al. 2020). Larger is better; negative means wrong answers."),
    "sharpness": ("Loss landscape and gradients", "How much the training loss can rise within a small box around the "
                  "weights, found by gradient ascent (Keskar et al. 2017). Lower (flatter) is better."),
    "flatness_random": ("Loss landscape and gradients", "Mean rise of the loss in random directions within the same box; "
                        "a milder version of sharpness. Lower is better."),
    "gradient_coherence": ("Loss landscape and gradients", "How much per-example gradients agree (Chatterjee 2020): 1 when "
                           "identical, 1/m when orthogonal over m examples. Higher means shared, generalizable updates."),
    "gradient_coherence_ratio": ("Loss landscape and gradients", "Gradient coherence divided by its value for orthogonal "
                                 "gradients, comparable across sample sizes; above 1 the examples pull together. Higher "
                                 "is better."),
    "el2n_mean": ("Examples", "Mean EL2N score (Paul et al. 2021): the distance between the predicted probabilities and "
                  "the one-hot target. Falling means examples are being learned; lower is easier."),
    "grand_mean": ("Examples", "Mean GraNd score (Paul et al. 2021): the norm of each example's loss gradient. Lower means "
                   "the examples no longer drive the updates."),
}


def group_of(family: str) -> str:
    """The group a measure family belongs to ("Other measures" when gengap has no note for it)."""
    return NOTES.get(family, ("Other measures", ""))[0]


def note(family: str) -> str:
    """The sentence on a measure family, or "" when gengap has none."""
    return NOTES.get(family, ("", ""))[1]
