"""Pure Plotly figure builders: data in, plotly.graph_objects.Figure out (one module per topic)."""
