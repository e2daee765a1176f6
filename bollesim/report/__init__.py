"""Reports and charts: the chart data, its matplotlib and Vega-Lite renderers, and the
balance report."""
