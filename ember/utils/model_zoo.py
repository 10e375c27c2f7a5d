"""``ember.utils.model_zoo`` (torch's legacy spelling): ``load_url`` is
``ember.hub.load_state_dict_from_url``.

Example:
    >>> from ember.utils.model_zoo import load_url
    >>> load_url is ember.hub.load_state_dict_from_url
    True
"""

from ember.hub import load_state_dict_from_url as load_url

__all__ = ["load_url"]
