"""The modules behind ``ember.utils.benchmark`` (torch's layout: ``common``, ``timer``,
``compare``)."""
