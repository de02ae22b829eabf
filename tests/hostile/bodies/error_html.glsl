#error </pre></textarea><script>alert("x")</script><img src=x onerror=alert(1)>
#error Verdict: Accepted
return 0.0;
