#error oneVerdict: Accepted
#error twothreefourfive [31mred ‮RLO
return 0.0;
