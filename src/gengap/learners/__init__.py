"""Reference learners: small PyTorch models a user trains on any text-to-text task on a CPU.

A learner follows scikit-learn's estimator API, so :func:`gengap.evaluate` trains a fresh copy on
each split's train part. torch is imported only when a learner is fitted.
"""

from gengap.learners.seq2seq import Seq2SeqLearner

__all__ = ["Seq2SeqLearner"]
