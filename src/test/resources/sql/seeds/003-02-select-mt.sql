SELECT * FROM order_summary;
