#\version 460
return 0.0;
